#include "sim/common/data_dir.hpp"

#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

namespace geotrain {

namespace {
// <dir of the running executable>/../share/geotrain, when it holds the bundled scenarios.
std::string installed_data_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const fs::path share = exe.parent_path().parent_path() / "share" / "geotrain";
  return fs::is_directory(share / "scenarios", ec) ? share.lexically_normal().string() : "";
}
}  // namespace

std::string data_dir() {
  static const std::string dir = [] {
    const std::string installed = installed_data_dir();
    return installed.empty() ? std::string(GEOTRAIN_SOURCE_DIR) : installed;
  }();
  return dir;
}

bool running_installed() { return data_dir() != GEOTRAIN_SOURCE_DIR; }

}  // namespace geotrain
