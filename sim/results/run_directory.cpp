#include "sim/results/run_directory.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"

namespace fs = std::filesystem;

namespace geotrain::results {

std::string claim_run_directory(const std::string& results_root, const std::string& scenario,
                                const std::string& executor) {
  // Checked before anything is created: a refused name leaves no directory behind.
  const fs::path base = path_under(results_root, {scenario, executor}, "name");
  std::error_code ec;
  fs::create_directories(base, ec);
  if (ec) throw SystemError(fmt::format("mkdir -p {}", base.string()), ec.value(), ec.message());
  for (int id = 1; id < 100000; ++id) {
    const fs::path dir = base / fmt::format("{:03d}", id);
    // mkdir is the claim: it fails for a directory another run (or process) already made.
    if (fs::create_directory(dir, ec)) return dir.string();
    if (ec) throw SystemError(fmt::format("mkdir {}", dir.string()), ec.value(), ec.message());
  }
  throw Error(fmt::format("{}: no free run id below 100000", base.string()));
}

std::string claim_explicit_directory(const std::string& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw SystemError(fmt::format("mkdir -p {}", dir), ec.value(), ec.message());
  // Every executor writes summary.json for a run it finished: its presence marks a run.
  if (fs::exists(fs::path(dir) / "summary.json"))
    throw InputError(fmt::format("--out {}: already holds a run (summary.json); a run never "
                                 "overwrites another (expected a new or empty directory)", dir));
  return dir;
}

std::string claim_directory(const std::string& results_root, const std::string& scenario,
                            const std::string& executor, const std::string& out) {
  return out.empty() ? claim_run_directory(results_root, scenario, executor)
                     : claim_explicit_directory(out);
}

}  // namespace geotrain::results
