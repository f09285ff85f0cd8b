#pragma once
// Runs a program to its end with its output captured: the common case of starting a child
// (ip/tc/iptables batches, a remote command over ssh), on top of ChildProcess and OutputPump.
#include <functional>
#include <string>

#include "sim/process/child_spec.hpp"

namespace geotrain::process {

struct RunOptions {
  std::string stdin_text;  // fed to the child's stdin, which then closes (empty: closed at once)
  // 0: as long as it takes. Else at the limit the child's group (or the child, without a group
  // of its own) is killed and reaped, and run() throws TimeoutError naming the command.
  double timeout_s = 0;
  std::function<void(const std::string&)> on_stdout_line, on_stderr_line;  // streaming
};

struct RunResult {
  int status = -1;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

// spec's streams are replaced by pipes (stdin, stdout, stderr). Throws SystemError when the
// child cannot be started at all, TimeoutError as above; a failing program is a status.
RunResult run(ChildSpec spec, const RunOptions& options = {});

// The same, but throws SystemError{command, status, stderr without trailing blanks} unless the
// child exits 0. shown: how the command is named in the error (default: argv joined).
RunResult run_checked(ChildSpec spec, const RunOptions& options = {},
                      const std::string& shown = "");

}  // namespace geotrain::process
