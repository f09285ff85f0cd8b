// real/host_state, real/host_check and real/host_scripts without a network: the state file round
// trip, the check output parsed and judged, the version message, and the scripts' key lines.
#include <catch2/catch.hpp>

#include "real/host_check.hpp"
#include "real/host_scripts.hpp"
#include "real/host_state.hpp"
#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace host_state_test {

namespace {

using namespace geotrain;
using namespace geotrain::real;

HostSpec ohio() {
  HostSpec h;
  h.name = "ns-ohio";
  h.address = std::get<SshTarget>(parse_ssh_target("root@10.199.0.2"));
  h.interface = "eth0";
  h.workdir = "/tmp/w/ns-ohio";
  h.worker = "/opt/gt/build/geotrain-worker";
  h.delayer = "/opt/gt/build/geotrain-delayer";
  return h;
}

HostState sample_state() {
  HostState s;
  s.host = "ns-ohio";
  s.scenario = "diloco_timeout_3";
  s.interface = "eth0";
  s.variant = "delayer";
  s.geotrain_version = "0.1.0";
  s.undo = {{"iptables", "-w", "-D", "INPUT", "-s", "10.199.0.1/32", "!", "-p", "icmp", "-j", "NFQUEUE"},
            {kStopDelayer},
            {"tc", "qdisc", "del", "dev", "eth0", "root"}};
  s.delayer_tag = "gt-real-ns-ohio";
  s.sysctls = {{"net.ipv4.tcp_rmem", "4096\t131072\t6291456"}, {"net.ipv4.tcp_congestion_control", "cubic"}};
  return s;
}

}  // namespace

TEST_CASE("the state file round-trips", "[real][state]") {
  const HostState s = sample_state();
  const HostState back = parse_state(state_text(s), "x");
  CHECK(back.host == s.host);
  CHECK(back.scenario == s.scenario);
  CHECK(back.variant == s.variant);
  CHECK(back.undo == s.undo);
  CHECK(back.delayer_tag == s.delayer_tag);
  CHECK(back.sysctls == s.sysctls);
  CHECK(back.replaced_qdisc.empty());
  CHECK_THROWS_WITH(parse_state("{\"geotrain_state\": 7}", "ns-ohio:/w/.geotrain/state.json"),
                    Catch::StartsWith("ns-ohio:/w/.geotrain/state.json: state file: geotrain_state is not 1"));
  CHECK_THROWS_WITH(parse_state("not json", "h"), Catch::StartsWith("h: state file: "));
}

TEST_CASE("the workers file is read as real run writes it", "[real][state]") {
  const auto w = parse_workers("[{\"rank\": 0, \"pid\": 1234}, {\"rank\": 2, \"pid\": 99}]", "h");
  REQUIRE(w.size() == 2);
  CHECK(w[1].rank == 2);
  CHECK(w[1].pid == 99);
  CHECK(parse_workers(workers_text(w), "h").size() == 2);
  CHECK_THROWS_WITH(parse_workers("[{\"rank\": 0, \"pid\": 1}]", "h"), Catch::Contains("expected a process id above 1"));
}

TEST_CASE("check output is parsed and judged", "[real][check]") {
  const std::string out =
      "uid=0\ntc=yes\niptables=yes\nip=yes\nping=yes\niperf3=yes\ninterface=yes\n"
      "root_qdisc=qdisc noqueue 0: root refcnt 2\ndelayer=yes\nversion=0.1.0\n"
      "sysctl net.ipv4.tcp_rmem=4096\t131072\t6291456\n";
  const HostCheck c = parse_check(out);
  CHECK(c.uid == 0);
  CHECK_FALSE(c.netem);
  CHECK_FALSE(c.worker);
  CHECK(c.sysctls.at("net.ipv4.tcp_rmem") == "4096\t131072\t6291456");
  CHECK(qdisc_kind(c.root_qdisc) == "noqueue");
  CHECK(check_problems(c, ohio(), {}).empty());
  CHECK(check_warnings(c, ohio()).size() == 1);  // no worker: apply goes on

  HostCheck bad = parse_check("uid=1000\ntc=yes\nip=yes\ninterface=yes\nroot_qdisc=qdisc htb 1: root refcnt 2\nstate=yes\n");
  const auto p = check_problems(bad, ohio(), {});
  REQUIRE(p.size() == 7);
  CHECK(p[0] == "logs in as uid 1000 (expected root, uid 0: tc, iptables and sysctl need it; sudo is not supported)");
  CHECK(p[1] == "no iptables in PATH (expected iproute2 / iptables installed)");
  CHECK(p[4] ==
        "eth0 already has root qdisc 'htb' (expected a kernel default such as noqueue, pfifo_fast, mq, fq_codel; "
        "--force replaces it and down does not restore it)");
  CHECK(p[5] == "/tmp/w/ns-ohio/.geotrain/state.json exists: applied already (run `geotrain real down` first)");
  CheckNeeds forced;
  forced.force = true;
  forced.measure = false;
  CHECK(check_problems(bad, ohio(), forced).size() == 4);
}

TEST_CASE("a version mismatch names both versions", "[real][check]") {
  CHECK(version_problem("0.1.0", "0.1.0", ohio()).empty());
  CHECK(version_problem("", "0.1.0", ohio()).empty());  // nothing to compare: a warning elsewhere
  CHECK(version_problem("0.2.0", "0.1.0", ohio()) ==
        "/opt/gt/build/geotrain (beside the worker) is version 0.2.0, this geotrain is 0.1.0 (expected the same "
        "build on every host)");
}

TEST_CASE("the scripts quote what comes from files and record before they change", "[real][scripts]") {
  const HostSpec h = ohio();
  const std::vector<emu::Command> sysctls{{emu::Tool::sysctl, "", {"-q", "-w", "net.ipv4.tcp_rmem=4096 131072 67108864"}}};
  const std::vector<emu::Command> shaping{
      {emu::Tool::tc, "", {"qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb"}},
      {emu::Tool::delayer, "", {"/opt/gt/build/geotrain-delayer", "--tag", "gt-real-ns-ohio", "--queue", "0:11000000"}},
      {emu::Tool::iptables, "", {"-w", "-A", "INPUT", "-s", "10.199.0.1/32", "!", "-p", "icmp", "-j", "NFQUEUE", "--queue-num", "0"}}};
  const std::string s = apply_script(h, sysctls, shaping, false);
  const auto state_at = s.find("/.geotrain/state.json.new"), sysctl_at = s.find("run sysctl -q -w 'net.ipv4.tcp_rmem=4096 131072 67108864'");
  const auto delayer_at = s.find("setsid /opt/gt/build/geotrain-delayer --tag gt-real-ns-ohio --queue 0:11000000 </dev/null");
  const auto bound_at = s.find("grep -qx 0;"), rule_at = s.find("run iptables -w -A INPUT -s 10.199.0.1/32 '!' -p icmp");
  REQUIRE(state_at != std::string::npos);
  REQUIRE(sysctl_at != std::string::npos);
  REQUIRE(delayer_at != std::string::npos);
  REQUIRE(bound_at != std::string::npos);
  REQUIRE(rule_at != std::string::npos);
  CHECK(state_at < sysctl_at);
  CHECK(sysctl_at < delayer_at);
  CHECK(delayer_at < bound_at);
  CHECK(bound_at < rule_at);

  const StateFiles f = parse_state_files("### state.json\n{}\n\n### delayer.pid\n4242\n\n");
  CHECK(f.delayer_pid.find("4242") != std::string::npos);
  CHECK(f.apply_pid.empty());
  const HostState st = sample_state();
  const std::string u = undo_script(h, f, &st, {{1, 777}});
  const auto worker_at = u.find("if ours 777 geotrain; then kill -KILL -- -777");
  const auto rule_undo = u.find("if iptables -w -D INPUT");
  const auto delayer_undo = u.find("if ours 4242 gt-real-ns-ohio; then stop 4242");
  const auto qdisc_undo = u.find("if tc qdisc del dev eth0 root 2>/dev/null");
  const auto sysctl_undo = u.find("sysctl -q -w 'net.ipv4.tcp_rmem=4096\t131072\t6291456'");
  REQUIRE(worker_at != std::string::npos);
  REQUIRE(rule_undo != std::string::npos);
  REQUIRE(delayer_undo != std::string::npos);
  REQUIRE(qdisc_undo != std::string::npos);
  REQUIRE(sysctl_undo != std::string::npos);
  CHECK(worker_at < rule_undo);
  CHECK(rule_undo < delayer_undo);
  CHECK(delayer_undo < qdisc_undo);
  CHECK(qdisc_undo < sysctl_undo);
  CHECK(u.find("rm -f /tmp/w/ns-ohio/.geotrain/state.json") != std::string::npos);
}

}  // namespace host_state_test
