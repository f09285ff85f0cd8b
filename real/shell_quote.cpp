#include "real/shell_quote.hpp"

#include <string_view>

namespace geotrain::real {

namespace {

bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_quote(const std::string& word) {
  bool safe = !word.empty();
  for (char c : word) safe = safe && plain(c);
  if (safe) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string shell_command(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    if (!out.empty()) out += ' ';
    out += shell_quote(word);
  }
  return out;
}

}  // namespace geotrain::real
