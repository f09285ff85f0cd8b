#include "sim/results/result_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <filesystem>

#include "sim/common/error.hpp"

namespace fs = std::filesystem;

namespace geotrain::results {

std::ofstream open_result_file(const std::string& path) {
  std::ofstream f(path);
  if (!f) throw SystemError(fmt::format("open {} for writing", path), errno, "");
  return f;
}

void write_result_text(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw SystemError("write " + path, errno, "");
}

void copy_scenario_file(const std::string& scenario_path, const std::string& dir) {
  if (scenario_path.empty() || !fs::exists(scenario_path)) return;
  std::error_code ec;  // a failed copy loses a convenience, not a result: the manifest names the file
  fs::copy_file(scenario_path, fs::path(dir) / "scenario.yaml", fs::copy_options::overwrite_existing, ec);
}

}  // namespace geotrain::results
