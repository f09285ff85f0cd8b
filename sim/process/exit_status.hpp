#pragma once
// A child's end in one number and in words. The number follows the shell: the exit status, or
// 128 + the signal that killed it; the words name the setup step behind our own codes 124..127.
#include <string>

namespace geotrain::process {

// waitpid's status -> exit status, or 128 + signal.
int exit_code_of(int wait_status);

// The code says a signal ended the child (128 + 1..64), not an exit status such as ssh's 255.
bool killed_by_signal(int code);

// "exit status 3", "killed by signal 9 (Killed)", "exit status 125 (cannot enter its network
// namespace)", "exit status 127 (cannot execute <program>)".
std::string describe_exit(int code, const std::string& program);

}  // namespace geotrain::process
