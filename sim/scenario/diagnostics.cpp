#include "sim/scenario/diagnostics.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/common/text_rules.hpp"

namespace geotrain {

std::string Diagnostics::where(int line) const {
  return line > 0 ? fmt::format("{}:{}", file_, line) : file_;
}

void Diagnostics::error(int line, const std::string& key_path, const std::string& value,
                        const std::string& message) {
  // printable(): a value with a bidi override must not turn the message around.
  lines_.push_back(
      printable(fmt::format("{}: {} = '{}': {}", where(line), key_path, value, message)));
}

void Diagnostics::error(int line, const std::string& key_path, const std::string& message) {
  lines_.push_back(printable(fmt::format("{}: {}: {}", where(line), key_path, message)));
}

void Diagnostics::throw_if_errors() const {
  if (!lines_.empty()) throw ScenarioError(lines_);
}

}  // namespace geotrain
