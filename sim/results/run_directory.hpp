#pragma once
// Where a run's files go: <results>/<scenario>/<executor>/<run-id>/ with run-id the next free
// 3-digit counter (001, 002, ...), claimed with mkdir so that two runs, of any executor and in
// any number of processes, never share (or overwrite) one.
#include <string>

namespace geotrain::results {

// Creates and returns <results_root>/<scenario>/<executor>/<NNN>. The scenario and executor
// names must stay under the root (safe_path.hpp); a refused name creates nothing.
std::string claim_run_directory(const std::string& results_root, const std::string& scenario,
                                const std::string& executor);

// An explicit --out: created if missing; refused (InputError) if it already holds a run. It is
// the user's own choice of path, taken as given; no part of it comes from the scenario.
std::string claim_explicit_directory(const std::string& dir);

// `out` when given (claim_explicit_directory), else the next free run directory.
std::string claim_directory(const std::string& results_root, const std::string& scenario,
                            const std::string& executor, const std::string& out);

}  // namespace geotrain::results
