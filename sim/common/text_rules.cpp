#include "sim/common/text_rules.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace geotrain {

namespace {

bool identifier_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == '-';
}

// Decodes one UTF-8 sequence at text[i]; returns its length, or 0 for an invalid byte.
std::size_t decode(std::string_view text, std::size_t i, char32_t& cp) {
  const auto b = static_cast<unsigned char>(text[i]);
  std::size_t len = b < 0x80           ? 1
                    : (b >> 5) == 0x6  ? 2
                    : (b >> 4) == 0xE  ? 3
                    : (b >> 3) == 0x1E ? 4
                                       : 0;
  if (len == 0 || i + len > text.size()) return 0;
  cp = len == 1 ? b : len == 2 ? (b & 0x1F) : len == 3 ? (b & 0x0F) : (b & 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c >> 6) != 0x2) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  return len;
}

bool forbidden(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

}  // namespace

std::optional<std::string> identifier_problem(std::string_view name) {
  const std::string expected = fmt::format(
      "expected 1 to {} characters of A-Z a-z 0-9 . _ -, not starting with '.'", kMaxNameLength);
  if (name.empty()) return "empty (" + expected + ")";
  if (name.size() > kMaxNameLength)
    return fmt::format("{} characters is too long ({})", name.size(), expected);
  for (char c : name) {
    if (identifier_char(c)) continue;
    const auto u = static_cast<unsigned char>(c);
    if (u > 0x20 && u < 0x7F)
      return fmt::format("holds '{}', which a name may not ({})", c, expected);
    return "holds a character not allowed in a name (" + expected + ")";
  }
  if (name.front() == '.') return "starts with '.' (" + expected + ")";
  return std::nullopt;
}

std::optional<std::string> text_problem(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = decode(text, i, cp);
    if (len == 0) return "is not valid UTF-8 (expected UTF-8 text)";
    if (forbidden(cp))
      return fmt::format(
          "holds the control or bidirectional character U+{:04X} (expected "
          "printable text)",
          static_cast<std::uint32_t>(cp));
    i += len;
  }
  return std::nullopt;
}

std::string printable(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t len = decode(text, i, cp);
    if (len == 0) {
      out += fmt::format("\\x{{{:02X}}}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (forbidden(cp))
      out += fmt::format("\\u{{{:04X}}}", static_cast<std::uint32_t>(cp));
    else
      out.append(text.substr(i, len));
    i += len;
  }
  return out;
}

std::string identifier_from(std::string_view stem) {
  std::string out;
  for (char c : stem) {
    if (out.size() == kMaxNameLength) break;
    if (out.empty() && c == '.') continue;
    out.push_back(identifier_char(c) ? c : '_');
  }
  return out.empty() ? "scenario" : out;
}

}  // namespace geotrain
