#include "shell.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

namespace geotrain::test {

ShellRun sh(const std::string& cmd) {
  FILE* pipe = popen((cmd + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed: " + cmd};
  std::string out;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) out.append(buf.data(), n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

bool have_root(const std::string& what) {
  if (geteuid() == 0) return true;
  const char* ci = std::getenv("CI");
  if (ci != nullptr && std::string(ci) == "true")
    FAIL(what << " need root and must run in CI (CI=true), but this process is not root");
  WARN("skipped: " << what << " need root (network namespaces); run ctest as root to include them");
  return false;
}

}  // namespace geotrain::test
