#include "sim/process/exit_status.hpp"

#include <fmt/format.h>
#include <sys/wait.h>

#include <cstring>

#include "sim/process/child_spec.hpp"

namespace geotrain::process {

int exit_code_of(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

bool killed_by_signal(int code) { return code > 128 && code <= 128 + 64; }

std::string describe_exit(int code, const std::string& program) {
  if (killed_by_signal(code))
    return fmt::format("killed by signal {} ({})", code - 128, ::strsignal(code - 128));
  switch (code) {
    case kExitCannotOpenOutput:
      return "exit status 124 (cannot open its output files)";
    case kExitCannotEnterNetns:
      return "exit status 125 (cannot enter its network namespace)";
    case kExitCannotExec:
      return fmt::format("exit status 127 (cannot execute {})", program);
    default:
      return fmt::format("exit status {}", code);
  }
}

}  // namespace geotrain::process
