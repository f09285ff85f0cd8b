#pragma once
// Writing one file of a run directory. A result file that cannot be written fails the run (a
// run with a silently missing ops.csv would later compare as "no ops").
#include <fstream>
#include <string>

namespace geotrain::results {

// Opens `path` for writing; throws SystemError if it cannot be created.
std::ofstream open_result_file(const std::string& path);

// Writes `text` to `path` (replacing it); throws SystemError on failure.
void write_result_text(const std::string& path, const std::string& text);

// Copies the scenario file as given to <dir>/scenario.yaml (overrides are listed in the
// manifest). Best effort: a scenario without a file (built in memory by a test) has none to copy.
void copy_scenario_file(const std::string& scenario_path, const std::string& dir);

}  // namespace geotrain::results
