#include "sim/engine/run_directory.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"

namespace fs = std::filesystem;

namespace geotrain::engine {

std::string claim_run_directory(const std::string& results_root, const std::string& scenario,
                                const std::string& executor) {
  // Checked before anything is created: a refused name leaves no directory behind.
  const fs::path base = path_under(results_root, {scenario, executor}, "name");
  std::error_code ec;
  fs::create_directories(base, ec);
  if (ec) throw SystemError(fmt::format("mkdir -p {}", base.string()), ec.value(), ec.message());
  for (int id = 1; id < 100000; ++id) {
    const fs::path dir = base / fmt::format("{:03d}", id);
    if (fs::create_directory(dir, ec)) return dir.string();  // false: taken by an earlier run
    if (ec) throw SystemError(fmt::format("mkdir {}", dir.string()), ec.value(), ec.message());
  }
  throw Error(fmt::format("{}: no free run id below 100000", base.string()));
}

std::string claim_explicit_directory(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw SystemError(fmt::format("mkdir -p {}", dir), ec.value(), ec.message());
  if (fs::exists(fs::path(dir) / "summary.json"))
    throw InputError(fmt::format("--out {}: already holds a run (summary.json); a run never "
                                 "overwrites another (expected a new or empty directory)", dir));
  return dir;
}

}  // namespace geotrain::engine
