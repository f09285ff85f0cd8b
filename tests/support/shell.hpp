#pragma once
// What the root tests (emu, launch, compare, decentralized emulations) share: running a shell
// command with its output, and the rule for tests that need root.
#include <string>

namespace geotrain::test {

struct ShellRun {
  int status = -1;  // exit code; -1 when the command did not exit normally
  std::string out;  // stdout and stderr
};

ShellRun sh(const std::string& cmd);

// True as root. Otherwise the test is skipped with a warning, except under CI=true, where it
// fails: CI runs as root and must not skip the network tests silently. `what` names the tests.
bool have_root(const std::string& what);

}  // namespace geotrain::test
