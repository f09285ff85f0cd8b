// real/shell_quote and real/ssh_client without a network: the quoting (checked against a real
// /bin/sh), the ssh argv, and how ssh's own failure becomes a message naming the host.
#include <catch2/catch.hpp>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "real/shell_quote.hpp"
#include "real/ssh_client.hpp"
#include "sim/process/run.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace ssh_client_test {

namespace {

using namespace geotrain;
using namespace geotrain::real;

HostSpec ohio() {
  HostSpec h;
  h.name = "ns-ohio";
  h.address = std::get<SshTarget>(parse_ssh_target("root@10.199.0.2"));
  h.ssh_options = {"-o", "StrictHostKeyChecking=no"};
  return h;
}

}  // namespace

TEST_CASE("shell_quote leaves plain words and single-quotes the rest", "[real][ssh]") {
  CHECK(shell_quote("tc") == "tc");
  CHECK(shell_quote("/opt/geotrain/build/geotrain-worker") == "/opt/geotrain/build/geotrain-worker");
  CHECK(shell_quote("net.ipv4.tcp_rmem=4096") == "net.ipv4.tcp_rmem=4096");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("$HOME") == "'$HOME'");
  CHECK(shell_quote("!") == "'!'");
  CHECK(shell_command({"sysctl", "-w", "net.ipv4.tcp_rmem=4096 131072 67108864"}) ==
        "sysctl -w 'net.ipv4.tcp_rmem=4096 131072 67108864'");
}

TEST_CASE("shell_command survives a real sh word for word", "[real][ssh]") {
  const std::vector<std::string> words{"plain", "two words", "it's", "$(reboot)", "`id`", "a\"b", "back\\slash",
                                       "*", "~", "semi;colon", "new\nline", "", "-n", "&&", "#x"};
  process::ChildSpec spec;
  spec.argv = {"sh", "-c", "printf '%s\\n' " + shell_command(words)};
  spec.search_path = true;
  const auto r = process::run_checked(spec);
  std::string expected;
  for (const auto& w : words) expected += w + "\n";
  CHECK(r.out == expected);
}

TEST_CASE("ssh_argv puts batch mode and the timeout first and the command after --", "[real][ssh]") {
  HostSpec h = ohio();
  CHECK(ssh_argv(h, "tc qdisc show") ==
        std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o",
                                 "StrictHostKeyChecking=no", "root@10.199.0.2", "--", "tc qdisc show"});
  h.address = std::get<SshTarget>(parse_ssh_target("example.org:2222"));
  SshOptions o;
  o.connect_timeout_s = 2.5;
  CHECK(ssh_argv(h, "true", o) ==
        std::vector<std::string>{"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=3", "-p", "2222", "-o",
                                 "StrictHostKeyChecking=no", "example.org", "--", "true"});
}

TEST_CASE("last_line finds what ssh said last", "[real][ssh]") {
  CHECK(last_line("") == "");
  CHECK(last_line("one") == "one");
  CHECK(last_line("Warning: x\nssh: connect to host 10.199.0.2 port 22: Connection refused\r\n\n") ==
        "ssh: connect to host 10.199.0.2 port 22: Connection refused");
  CHECK(last_line("\n\n  \n") == "");
}

TEST_CASE("an ssh failure names the host and ssh's reason", "[real][ssh]") {
  // A stand-in client that fails as ssh does: exit 255 and its reason last on stderr.
  char dir[] = "/tmp/gtssh-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  const std::string fake = std::string(dir) + "/ssh";
  {
    std::ofstream f(fake);
    f << "#!/bin/sh\necho 'Warning: something' >&2\n"
         "echo 'ssh: connect to host 10.199.0.2 port 22: Connection refused' >&2\nexit 255\n";
  }
  std::filesystem::permissions(fake, std::filesystem::perms::owner_all);
  SshOptions o;
  o.ssh = fake;
  const HostSpec h = ohio();
  try {
    ssh_run(h, "true", {}, o);
    FAIL("no error");
  } catch (const HostError& e) {
    CHECK(std::string(e.what()) ==
          "host ns-ohio (root@10.199.0.2): ssh failed: ssh: connect to host 10.199.0.2 port 22: Connection refused");
    CHECK(e.host_name() == "ns-ohio");
  }
  // A remote command that fails is a status; ssh_run_checked makes it an error naming the host.
  o.ssh = "false";
  CHECK(ssh_run(h, "true", {}, o).status == 1);
  try {
    ssh_run_checked(h, "true", "the check", {}, o);
    FAIL("no error");
  } catch (const HostError& e) {
    CHECK(std::string(e.what()) == "host ns-ohio (root@10.199.0.2): the check failed (exit 1)");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace ssh_client_test
