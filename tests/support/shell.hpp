#pragma once
// What the root tests (emu, launch, compare, decentralized emulations) share: running a shell
// command with its output, and the rule for tests that need root.
#include <string>
#include <vector>

namespace geotrain::test {

struct ShellRun {
  int status = -1;  // exit code; -1 when the command did not exit normally
  std::string out;  // stdout and stderr
};

ShellRun sh(const std::string& cmd);

// Runs the commands side by side, at most `lanes` at a time, and returns their runs in the order
// given. For emulations whose test judges bytes and losses, not time: each is mostly waiting on
// its shaped links, so running them together shortens the suite without changing what is checked.
// Make no Catch assertion in the commands' threads (Catch is not thread-safe); judge the results.
std::vector<ShellRun> sh_concurrently(const std::vector<std::string>& cmds, int lanes);

// True as root. Otherwise the test is skipped with a warning, except under CI=true, where it
// fails: CI runs as root and must not skip the network tests silently. `what` names the tests.
bool have_root(const std::string& what);

}  // namespace geotrain::test
