// ssh targets as hosts files write them: [user@]host[:port].
#include <catch2/catch.hpp>

#include "real/ssh_target.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace ssh_target_test {

using namespace geotrain::real;

namespace {

SshTarget ok(const std::string& text) {
  auto parsed = parse_ssh_target(text);
  INFO(text);
  REQUIRE(std::holds_alternative<SshTarget>(parsed));
  return std::get<SshTarget>(parsed);
}

std::string problem(const std::string& text) {
  auto parsed = parse_ssh_target(text);
  INFO(text);
  REQUIRE(std::holds_alternative<std::string>(parsed));
  return std::get<std::string>(parsed);
}

}  // namespace

TEST_CASE("ssh targets with and without user and port", "[real][ssh]") {
  const SshTarget plain = ok("10.0.0.1");
  CHECK(plain.user.empty());
  CHECK(plain.host == "10.0.0.1");
  CHECK(plain.port == 22);
  CHECK(plain.to_string() == "10.0.0.1");
  const SshTarget full = ok("ubuntu@gpu-1.example.org:2222");
  CHECK(full.user == "ubuntu");
  CHECK(full.host == "gpu-1.example.org");
  CHECK(full.port == 2222);
  CHECK(full.to_string() == "ubuntu@gpu-1.example.org:2222");
}

TEST_CASE("bad ssh targets say what is wrong", "[real][ssh]") {
  CHECK(problem("h:0") == "bad port '0' (expected 1 ... 65535)");
  CHECK(problem("h:65536") == "bad port '65536' (expected 1 ... 65535)");
  CHECK(problem("h:") == "bad port '' (expected 1 ... 65535)");
  CHECK(problem("@h").rfind("user empty", 0) == 0);
  CHECK(problem("-oProxyCommand=x").find("host starts with '-'") == 0);
  CHECK(problem("a b").find("host holds ' '") == 0);
  CHECK(problem("[::1]:22").find("IPv6") != std::string::npos);
}

TEST_CASE("IPv4 literals", "[real][ssh]") {
  CHECK(is_ipv4("10.0.0.1"));
  CHECK(is_ipv4("255.255.255.255"));
  CHECK_FALSE(is_ipv4("256.0.0.1"));
  CHECK_FALSE(is_ipv4("10.0.0"));
  CHECK_FALSE(is_ipv4("10.0.0.1.2"));
  CHECK_FALSE(is_ipv4("10.0.0.01"));
  CHECK_FALSE(is_ipv4("10.0.0.x"));
  CHECK_FALSE(is_ipv4("gpu.example.org"));
}

}  // namespace ssh_target_test
