#pragma once
// Where a run's files go: results/<scenario>/sim/<run-id>/ with run-id the next free 3-digit
// counter (001, 002, ...), claimed with mkdir so that two runs never share (or overwrite) one.
#include <string>

namespace geotrain::engine {

// Creates and returns <results_root>/<scenario>/<executor>/<NNN>.
std::string claim_run_directory(const std::string& results_root, const std::string& scenario,
                                const std::string& executor);

// An explicit --out: created if missing; refused (InputError) if it already holds a run. It is
// the user's own choice of path, taken as given; no part of it comes from the scenario.
std::string claim_explicit_directory(const std::string& dir);

}  // namespace geotrain::engine
