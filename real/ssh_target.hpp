#pragma once
// An ssh target as a hosts file writes it, `[user@]host[:port]`, checked before anything could
// pass it to ssh: the user is a name ([A-Za-z0-9._-], 1-64 characters, not starting with '.' or
// '-'), the host an IPv4 address or a DNS name (letters, digits, '-' and '.', no leading '-'),
// the port 1-65535. IPv6 literals are not accepted yet.
#include <optional>
#include <string>
#include <variant>

namespace geotrain::real {

struct SshTarget {
  std::string user;  // "" = ssh's default
  std::string host;
  int port = 22;

  std::string to_string() const;  // as written back: user@host:port (user, port only when given)
  bool port_given = false;
};

// The target, or what is wrong with the text (with what was expected).
std::variant<SshTarget, std::string> parse_ssh_target(const std::string& text);

// True for a dotted-quad IPv4 address such as 10.0.0.5 (four numbers 0-255, no leading zeros).
bool is_ipv4(const std::string& text);

}  // namespace geotrain::real
