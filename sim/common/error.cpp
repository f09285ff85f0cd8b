#include "sim/common/error.hpp"

#include <fmt/format.h>

namespace geotrain {

namespace {
std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) {
    if (!out.empty()) out += '\n';
    out += line;
  }
  return out;
}
}  // namespace

InputError::InputError(std::vector<std::string> problems)
    : Error(join_lines(problems)), problems_(std::move(problems)) {}

SystemError::SystemError(std::string command, int status, std::string stderr_text)
    : Error(fmt::format("command failed (status {}): {}{}{}", status, command,
                        stderr_text.empty() ? "" : ": ", stderr_text)),
      command_(std::move(command)),
      status_(status),
      stderr_text_(std::move(stderr_text)) {}

TimeoutError::TimeoutError(std::string what, double waited_s)
    : Error(fmt::format("timed out after {:.1f} s waiting for {}", waited_s, what)),
      what_(std::move(what)),
      waited_s_(waited_s) {}

}  // namespace geotrain
