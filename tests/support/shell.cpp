#include "shell.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <thread>
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

std::vector<ShellRun> sh_concurrently(const std::vector<std::string>& cmds, int lanes) {
  std::vector<ShellRun> runs(cmds.size());
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> threads;
  const auto n = std::min<std::size_t>(cmds.size(), static_cast<std::size_t>(std::max(1, lanes)));
  for (std::size_t t = 0; t < n; ++t)
    threads.emplace_back([&] {
      for (std::size_t i = next++; i < cmds.size(); i = next++) runs[i] = sh(cmds[i]);
    });
  for (auto& t : threads) t.join();
  return runs;
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
