#include "sim/common/one_line.hpp"

#include <fmt/format.h>

namespace geotrain {

std::string one_line(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (byte < 0x20 || byte == 0x7f) out += fmt::format("\\x{:02x}", byte);
    else out += c;  // UTF-8 and other bytes >= 0x80 pass through: names may be non-ASCII
  }
  return out;
}

}  // namespace geotrain
