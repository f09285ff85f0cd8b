#include "real/ssh_target.hpp"

#include <fmt/format.h>

#include <charconv>

#include "sim/common/text_rules.hpp"

namespace geotrain::real {

namespace {

bool dns_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

std::optional<std::string> host_problem(const std::string& host) {
  const std::string expected = "expected an IPv4 address or a DNS name of letters, digits, '-' and '.'";
  if (host.empty()) return "no host (" + expected + ")";
  if (host.size() > 253) return fmt::format("host name of {} characters is too long ({})", host.size(), expected);
  if (host.front() == '[') return "IPv6 addresses are not supported yet (" + expected + ")";
  // First: a target starting with '-' would be read by ssh as an option.
  if (host.front() == '-' || host.front() == '.') return "host starts with '" + std::string(1, host.front()) + "' (" + expected + ")";
  for (char c : host)
    if (!dns_char(c)) return fmt::format("host holds '{}' ({})", printable(std::string(1, c)), expected);
  return std::nullopt;
}

}  // namespace

bool is_ipv4(const std::string& text) {
  int parts = 0;
  std::size_t i = 0;
  while (true) {
    const std::size_t dot = text.find('.', i);
    const std::string part = text.substr(i, dot == std::string::npos ? std::string::npos : dot - i);
    int value = -1;
    auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || part.size() > 3 || ec != std::errc() || ptr != part.data() + part.size() ||
        value > 255 || (part.size() > 1 && part.front() == '0'))
      return false;
    ++parts;
    if (dot == std::string::npos) break;
    i = dot + 1;
  }
  return parts == 4;
}

std::string SshTarget::to_string() const {
  std::string out = user.empty() ? host : user + "@" + host;
  if (port_given) out += ":" + std::to_string(port);
  return out;
}

std::variant<SshTarget, std::string> parse_ssh_target(const std::string& text) {
  SshTarget t;
  std::string rest = text;
  if (const auto at = rest.find('@'); at != std::string::npos) {
    t.user = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (auto problem = identifier_problem(t.user)) return "user " + *problem;
    if (t.user.front() == '-') return "user starts with '-' (expected a user name)";
  }
  if (const auto colon = rest.rfind(':'); colon != std::string::npos) {
    const std::string port = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
    int value = 0;
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || value < 1 || value > 65535)
      return fmt::format("bad port '{}' (expected 1 ... 65535)", printable(port));
    t.port = value;
    t.port_given = true;
  }
  if (auto problem = host_problem(rest)) return *problem;
  t.host = rest;
  return t;
}

}  // namespace geotrain::real
