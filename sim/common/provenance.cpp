#include "sim/common/provenance.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <memory>

#include "sim/common/data_dir.hpp"

namespace geotrain {

namespace {
std::string command_output(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::array<char, 256> buf{};
  std::string out;
  while (fgets(buf.data(), buf.size(), pipe.get()) != nullptr) out += buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}
}  // namespace

std::string git_sha() {
  // An installed geotrain is a release, whatever checkout may sit where it was built.
  if (running_installed()) return std::string("release-") + GEOTRAIN_VERSION;
  const std::string dir = GEOTRAIN_SOURCE_DIR;
  std::string sha = command_output(fmt::format("git -C '{}' rev-parse HEAD 2>/dev/null", dir));
  if (sha.empty()) return "unknown";
  if (!command_output(fmt::format("git -C '{}' status --porcelain --untracked-files=no 2>/dev/null", dir)).empty())
    sha += "-dirty";
  return sha;
}

}  // namespace geotrain
