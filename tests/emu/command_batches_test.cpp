#include <catch2/catch.hpp>

#include "emu/net/command_batches.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace command_batches_test {

using namespace geotrain::emu;

TEST_CASE("consecutive commands of one tool and namespace become one invocation", "[batches]") {
  const std::vector<Command> commands = {
      {Tool::ip, "", {"netns", "add", "gt-x-0"}},
      {Tool::ip, "", {"netns", "add", "gt-x-1"}},
      {Tool::tc, "gt-x-0", {"qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb"}},
      {Tool::tc, "gt-x-0", {"class", "add", "dev", "eth0", "parent", "1:", "classid", "1:2"}},
      {Tool::sysctl, "gt-x-0", {"-q", "-w", "net.ipv4.tcp_rmem=4096 131072 67108864"}},
      {Tool::sysctl, "gt-x-0", {"-q", "-w", "net.ipv4.tcp_slow_start_after_idle=0"}},
      {Tool::iptables, "gt-x-0", {"-w", "-A", "INPUT", "-s", "10.0.0.2/32", "-j", "NFQUEUE", "--queue-num", "1"}},
      {Tool::iptables, "gt-x-0", {"-w", "-A", "INPUT", "-s", "10.0.0.3/32", "-j", "NFQUEUE", "--queue-num", "2"}},
      {Tool::tc, "gt-x-1", {"qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb"}},
  };
  const auto inv = batch_commands(commands);
  REQUIRE(inv.size() == 5);
  CHECK(inv[0].argv == std::vector<std::string>{"ip", "-batch", "-"});
  CHECK(inv[0].stdin_text == "netns add gt-x-0\nnetns add gt-x-1\n");
  CHECK(inv[1].argv == std::vector<std::string>{"tc", "-n", "gt-x-0", "-batch", "-"});
  CHECK(inv[1].stdin_text == "qdisc add dev eth0 root handle 1: htb\nclass add dev eth0 parent 1: classid 1:2\n");
  CHECK(inv[2].argv == std::vector<std::string>{"ip", "netns", "exec", "gt-x-0", "sysctl", "-q", "-w",
                                                "net.ipv4.tcp_rmem=4096 131072 67108864",
                                                "net.ipv4.tcp_slow_start_after_idle=0"});
  CHECK(inv[3].argv == std::vector<std::string>{"ip", "netns", "exec", "gt-x-0", "iptables-restore", "--noflush", "-w"});
  CHECK(inv[3].stdin_text ==
        "*filter\n-A INPUT -s 10.0.0.2/32 -j NFQUEUE --queue-num 1\n"
        "-A INPUT -s 10.0.0.3/32 -j NFQUEUE --queue-num 2\nCOMMIT\n");
  CHECK(inv[4].commands.size() == 1);
}

TEST_CASE("delayer commands are not batched", "[batches]") {
  CHECK_THROWS_AS(batch_commands({{Tool::delayer, "gt-x-0", {"geotrain-delayer"}}}), std::invalid_argument);
}

TEST_CASE("commands print as a person would type them", "[batches]") {
  CHECK(Command{Tool::tc, "gt-x-0", {"qdisc", "show"}}.to_string() == "tc -n gt-x-0 qdisc show");
  CHECK(Command{Tool::sysctl, "gt-x-0", {"-w", "a=1 2"}}.to_string() == "ip netns exec gt-x-0 sysctl -w 'a=1 2'");
  CHECK(Command{Tool::ip, "", {"netns", "add", "n"}}.to_string() == "ip netns add n");
}

}  // namespace command_batches_test
