// `geotrain real apply / status / down` against the ssh rig (label real, root, sshd): the
// geotrain binary runs in the rig's controller namespace and reaches the three "hosts" over ssh,
// exactly as on remote machines. This kernel may lack sch_netem, so --netem auto may pick the
// delayer. Each test checks from the outside (ip netns exec) that down left nothing.
#include <catch2/catch.hpp>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "sim/process/child_process.hpp"
#include "tests/real/rig_support.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace real_apply_root_test {

namespace {

using geotrain::test::sh;
using geotrain::test::SshRig;
namespace fs = std::filesystem;

const std::string kBin = GEOTRAIN_BINARY;

std::string in_host(const SshRig& rig, std::size_t i, const std::string& cmd) {
  return sh("ip netns exec " + rig.host_netns(i) + " " + cmd).out;
}

// What apply may have left on host i, as text ("" = nothing): a root qdisc other than the
// veth's default, any iptables rule, a delayer process, the state file.
std::string leftovers(const SshRig& rig, std::size_t i) {
  std::string left;
  const std::string qdisc = in_host(rig, i, "tc qdisc show dev eth0 root");
  if (qdisc.find("noqueue") == std::string::npos) left += "qdisc: " + qdisc;
  std::istringstream rules(in_host(rig, i, "iptables -w -S"));
  for (std::string line; std::getline(rules, line);)
    if (line.rfind("-P ", 0) != 0) left += "rule: " + line + "\n";
  std::istringstream pids(sh("ip netns pids " + rig.host_netns(i)).out);
  for (std::string pid; std::getline(pids, pid);) {
    std::ifstream f("/proc/" + pid + "/cmdline");
    std::string cmdline((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (cmdline.find("geotrain-delayer") != std::string::npos) left += "delayer pid " + pid + "\n";
    if (cmdline.find("iperf3") != std::string::npos) left += "iperf3 pid " + pid + "\n";
  }
  if (fs::exists(rig.workdir(i) + "/.geotrain/state.json")) left += "state file\n";
  return left;
}

std::string apply_cmd(const SshRig& rig, const std::string& hosts, const std::string& extra) {
  return rig.controller_shell(kBin + " real apply " + geotrain::test::diloco3() + " --hosts " + hosts + " " + extra);
}

}  // namespace

TEST_CASE("real apply on three rig hosts - measured links - status - down leaves nothing - down again", "[real][rig]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig(geotrain::test::three_hosts(), geotrain::test::build_dir());
  const std::string cc_before = in_host(rig, 1, "sysctl -n net.ipv4.tcp_congestion_control");
  const std::string out_json = rig.dir() + "/links.json";
  const auto apply = sh(apply_cmd(rig, rig.hosts_file(), "--out " + out_json));
  WARN(apply.out);
  REQUIRE(apply.status == 0);
  CHECK(in_host(rig, 1, "sysctl -n net.ipv4.tcp_congestion_control") == "reno\n");
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(fs::exists(rig.workdir(i) + "/.geotrain/state.json"));
    CHECK(in_host(rig, i, "tc qdisc show dev eth0 root").find("htb") != std::string::npos);
  }

  // Tolerances that do not depend on the machine's speed: a delay is never below its configured
  // value (less 0.5 ms for clock granularity) and on the fastest probe at most max(2 ms, 10 %)
  // above; TCP goodput never above the rate (+5 %) and at least half of it.
  const auto links = nlohmann::json::parse(std::ifstream(out_json))["links"];
  REQUIRE(links.size() == 6);
  for (const auto& l : links) {
    INFO(l.dump());
    const double cd = l["delay_ms"]["configured"], md = l["delay_ms"]["measured"];
    const double cb = l["bandwidth_mbps"]["configured"], mb = l["bandwidth_mbps"]["measured"];
    CHECK(md >= cd - 0.5);
    CHECK(md <= cd + std::max(2.0, 0.1 * cd));
    CHECK(mb <= cb * 1.05);
    CHECK(mb >= cb * 0.5);
  }

  const auto status = sh(rig.controller_shell(kBin + " real status --hosts " + rig.hosts_file()));
  WARN(status.out);
  CHECK(status.status == 0);
  for (const char* name : {"ns-virginia: reachable; state recorded; eth0 root: qdisc htb", "ns-ohio: reachable",
                           "ns-london: reachable"})
    CHECK(status.out.find(name) != std::string::npos);
  CHECK(status.out.find("delayer alive") != std::string::npos);

  const auto down = sh(rig.controller_shell(kBin + " real down --hosts " + rig.hosts_file()));
  WARN(down.out);
  CHECK(down.status == 0);
  CHECK(down.out.find("ns-ohio: stopped the delayer") != std::string::npos);
  for (std::size_t i = 0; i < 3; ++i) CHECK(leftovers(rig, i) == "");
  CHECK(in_host(rig, 1, "sysctl -n net.ipv4.tcp_congestion_control") == cc_before);

  const auto again = sh(rig.controller_shell(kBin + " real down --hosts " + rig.hosts_file()));
  CHECK(again.status == 0);
  CHECK(again.out == "ns-virginia: nothing to undo\nns-ohio: nothing to undo\nns-london: nothing to undo\n");
  const auto status2 = sh(rig.controller_shell(kBin + " real status --hosts " + rig.hosts_file()));
  CHECK(status2.out.find("ns-ohio: reachable; state none; eth0 root: qdisc noqueue") != std::string::npos);
}

TEST_CASE("real apply with one host unreachable fails naming it and changes no host", "[real][rig]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig(geotrain::test::three_hosts(), geotrain::test::build_dir());
  rig.stop_sshd(1);
  const auto apply = sh(apply_cmd(rig, rig.hosts_file(), "--measure no --connect-timeout 2"));
  INFO(apply.out);
  CHECK(apply.status == 1);
  CHECK(apply.out.find("host ns-ohio (root@10.199.0.2): ssh failed: ") != std::string::npos);
  for (std::size_t i = 0; i < 3; ++i) CHECK(leftovers(rig, i) == "");
  // down and status go on past the unreachable host and say which one it is (exit 1).
  const auto down = sh(rig.controller_shell(kBin + " real down --connect-timeout 2 --hosts " + rig.hosts_file()));
  CHECK(down.status == 1);
  CHECK(down.out.find("ns-london: nothing to undo") != std::string::npos);
  const auto status = sh(rig.controller_shell(kBin + " real status --connect-timeout 2 --hosts " + rig.hosts_file()));
  CHECK(status.status == 1);
  CHECK(status.out.find("ns-ohio: unreachable: host ns-ohio (root@10.199.0.2): ssh failed: ") != std::string::npos);
}

TEST_CASE("real apply failing on the third host undoes the two before it", "[real][rig]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig(geotrain::test::three_hosts(), geotrain::test::build_dir());
  // The third host's "delayer" exits at once: its checks pass, its apply fails after the first
  // two hosts were shaped.
  std::ifstream in(rig.hosts_file());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto last = text.rfind("delayer: ");
  text.replace(last, text.find('\n', last) - last, "delayer: /bin/false");
  const std::string hosts = rig.dir() + "/hosts_bad_delayer.yaml";
  std::ofstream(hosts) << text;
  const auto apply = sh(apply_cmd(rig, hosts, "--netem no --measure no"));
  INFO(apply.out);
  CHECK(apply.status == 1);
  CHECK(apply.out.find("host ns-london (root@10.199.0.3): apply failed: the delayer exited") != std::string::npos);
  CHECK(apply.out.find("ns-virginia: undo: stopped the delayer") != std::string::npos);
  for (std::size_t i = 0; i < 3; ++i) CHECK(leftovers(rig, i) == "");
}

TEST_CASE("kill -9 of the controller during apply - then real down leaves nothing", "[real][rig]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig(geotrain::test::three_hosts(), geotrain::test::build_dir());
  geotrain::process::ChildSpec spec;
  spec.argv = rig.controller_argv({kBin, "real", "apply", geotrain::test::diloco3(), "--hosts", rig.hosts_file()});
  spec.search_path = true;
  spec.out = spec.err = geotrain::process::Stream::null();
  auto controller = geotrain::process::ChildProcess::start(spec);
  // Killed while the second host is being applied (the first is done, the third untouched).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(rig.workdir(1) + "/.geotrain/state.json") && std::chrono::steady_clock::now() < deadline &&
         controller.running() && !controller.try_wait())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  controller.signal(SIGKILL);
  controller.wait();
  CHECK(fs::exists(rig.workdir(0) + "/.geotrain/state.json"));
  const auto down = sh(rig.controller_shell(kBin + " real down --hosts " + rig.hosts_file()));
  WARN(down.out);
  CHECK(down.status == 0);
  for (std::size_t i = 0; i < 3; ++i) CHECK(leftovers(rig, i) == "");
}

}  // namespace real_apply_root_test
