// `real plan` for the bundled example (scenarios/emu/case5_8ranks.yaml on scenarios/real/hosts.yaml)
// against values computed here from the scenario's links, not by the planner's own code.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "real/plan_json.hpp"
#include "real/real_plan.hpp"
#include "sim/common/units.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace real_plan_test {

using namespace geotrain;
using namespace geotrain::real;

namespace {

const std::string kSource = GEOTRAIN_SOURCE_DIR;

struct Example {
  Scenario scenario = load_scenario(kSource + "/scenarios/emu/case5_8ranks.yaml");
  HostsFile hosts = load_hosts(kSource + "/scenarios/real/hosts.yaml", scenario);
  Program program = build_program(scenario);
};

std::vector<std::string> texts(const std::vector<emu::Command>& list) {
  std::vector<std::string> out;
  for (const auto& c : list) out.push_back(c.to_string());
  return out;
}

bool has(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// The host link a -> b computed by hand: every rank pair, the minimum rate, the median delay.
struct Expected {
  double rate_Bps = 1e300, delay_s = 0;
};
Expected expected_link(const Scenario& s, const std::vector<int>& from, const std::vector<int>& to) {
  const Topology net = s.effective_network();
  Expected e;
  std::vector<double> delays;
  for (int a : from)
    for (int b : to) e.rate_Bps = std::min(e.rate_Bps, net.bandwidth_Bps(a, b)), delays.push_back(net.delay_s(a, b));
  std::sort(delays.begin(), delays.end());
  const std::size_t n = delays.size();
  e.delay_s = n % 2 ? delays[n / 2] : (delays[n / 2 - 1] + delays[n / 2]) / 2;
  return e;
}

std::string class_line(const std::string& dev, int dst, double rate_Bps) {
  const auto bits = std::llround(rate_Bps * 8);
  const auto burst = static_cast<long long>(std::ceil(std::max(2.0 * 1514, rate_Bps / 1000)));
  return fmt::format("tc class add dev {} parent 1: classid 1:{:x} htb rate {}bit ceil {}bit burst {} cburst {} "
                     "quantum 65536", dev, dst + 1, bits, bits, burst, burst);
}

}  // namespace

TEST_CASE("real plan shapes each host pair with the minimum rate and median delay of its rank pairs", "[real][plan]") {
  const Example ex;
  const RealPlan plan = make_real_plan(ex.scenario, ex.program, ex.hosts, {});
  REQUIRE(plan.hosts.size() == 4);
  const std::vector<std::vector<int>> ranks = {{0}, {1, 2}, {3, 4}, {5, 6, 7}};
  const std::vector<std::string> addr = {"192.0.2.10", "192.0.2.20", "198.51.100.30", "203.0.113.40"};
  for (int h = 0; h < 4; ++h) {
    const auto netem = texts(plan.hosts[static_cast<std::size_t>(h)].netem);
    const auto delayer = texts(plan.hosts[static_cast<std::size_t>(h)].delayer);
    INFO("host " << h);
    CHECK(netem.front() == "tc qdisc add dev ens5 root handle 1: htb");
    CHECK(delayer.front() == "tc qdisc add dev ens5 root handle 1: htb");
    for (int d = 0; d < 4; ++d) {
      if (d == h) continue;
      INFO("to host " << d);
      const Expected e = expected_link(ex.scenario, ranks[static_cast<std::size_t>(h)], ranks[static_cast<std::size_t>(d)]);
      CHECK(has(netem, class_line("ens5", d, e.rate_Bps)));
      CHECK(has(delayer, class_line("ens5", d, e.rate_Bps)));
      CHECK(has(netem, fmt::format("tc qdisc add dev ens5 parent 1:{:x} handle {:x}: netem delay {}us limit 100000", d + 1,
                                   d + 2, std::llround(e.delay_s * 1e6))));
      const std::string filter = fmt::format("tc filter add dev ens5 parent 1: protocol ip prio 1 u32 match ip dst "
                                             "{}/32 flowid 1:{:x}", addr[static_cast<std::size_t>(d)], d + 1);
      CHECK(has(netem, filter));
      CHECK(has(delayer, filter));
      // Delayer: the receiver holds each source host's packets for that host link's delay.
      const Expected in = expected_link(ex.scenario, ranks[static_cast<std::size_t>(d)], ranks[static_cast<std::size_t>(h)]);
      CHECK(has(delayer, fmt::format("iptables -w -A INPUT -s {}/32 ! -p icmp -j NFQUEUE --queue-num {}",
                                     addr[static_cast<std::size_t>(d)], d)));
      const auto& start = plan.hosts[static_cast<std::size_t>(h)].delayer;
      const auto it = std::find_if(start.begin(), start.end(), [](const emu::Command& c) { return c.tool == emu::Tool::delayer; });
      REQUIRE(it != start.end());
      const std::string args = it->to_string();
      CHECK(args.find(fmt::format("--queue {}:{}", d, std::llround(in.delay_s * 1e9))) != std::string::npos);
      CHECK(args.find(fmt::format("--queue {}:{}", 32768 + d, std::llround(e.delay_s * 1e9))) != std::string::npos);
    }
    CHECK(texts(plan.hosts[static_cast<std::size_t>(h)].undo_netem) == std::vector<std::string>{"tc qdisc del dev ens5 root"});
    CHECK(texts(plan.hosts[static_cast<std::size_t>(h)].undo_delayer).back() == "tc qdisc del dev ens5 root");
  }
  CHECK(texts(plan.hosts[0].delayer)[7].rfind("geotrain/build/geotrain-delayer --tag gt-real-oregon --queue 1:", 0) == 0);
}

TEST_CASE("real plan sizes TCP buffers from the bandwidth-delay product of each host's links", "[real][plan]") {
  Example ex;
  // Default network.tcp_buffer (64 MiB) is above every 2 x bandwidth x RTT of case 5: kept.
  const RealPlan plain = make_real_plan(ex.scenario, ex.program, ex.hosts, {});
  for (const auto& h : plain.hosts) {
    CHECK(h.tcp_buffer_bytes == 64.0 * 1024 * 1024);
    CHECK(texts(h.sysctls)[0] == "sysctl -q -w 'net.ipv4.tcp_rmem=4096 131072 67108864'");
  }
  // A 64 kB configured buffer: each host gets the largest 2 x bandwidth x RTT of its host links.
  ex.scenario.tcp_buffer_bytes = 65536;
  const RealPlan plan = make_real_plan(ex.scenario, ex.program, ex.hosts, {});
  const std::vector<std::vector<int>> ranks = {{0}, {1, 2}, {3, 4}, {5, 6, 7}};
  for (int h = 0; h < 4; ++h) {
    double need = 0;
    for (int d = 0; d < 4; ++d) {
      if (d == h) continue;
      const Expected out = expected_link(ex.scenario, ranks[static_cast<std::size_t>(h)], ranks[static_cast<std::size_t>(d)]);
      const Expected back = expected_link(ex.scenario, ranks[static_cast<std::size_t>(d)], ranks[static_cast<std::size_t>(h)]);
      need = std::max({need, 2 * out.rate_Bps * (out.delay_s + back.delay_s), 2 * back.rate_Bps * (out.delay_s + back.delay_s)});
    }
    const HostPlan& p = plan.hosts[static_cast<std::size_t>(h)];
    INFO("host " << h);
    CHECK(p.tcp_buffer_bytes == std::max(65536.0, std::ceil(need)));
    CHECK(texts(p.sysctls)[1] == fmt::format("sysctl -q -w 'net.ipv4.tcp_wmem=4096 16384 {}'",
                                             static_cast<long long>(p.tcp_buffer_bytes)));
    CHECK(p.notes.size() == 1);
  }
}

TEST_CASE("real plan launches each Program rank on its host with a timeout from the scenario's links", "[real][plan]") {
  const Example ex;
  RealPlanOptions o;
  o.master_port = 29611;
  const RealPlan plan = make_real_plan(ex.scenario, ex.program, ex.hosts, o);
  // Independently: largest one-way delay x 2, slowest link, largest op of the Program.
  const Topology net = ex.scenario.effective_network();
  double max_delay = 0, min_bw = 1e300, largest = 0;
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      if (a != b) max_delay = std::max(max_delay, net.delay_s(a, b)), min_bw = std::min(min_bw, net.bandwidth_Bps(a, b));
  for (const auto& ops : ex.program.ranks)
    for (const auto& op : ops)
      if (const auto* c = op.as<CollectiveOp>()) largest = std::max(largest, c->bytes);
  const double rtt = 2 * max_delay;
  const double expected = std::ceil(60 + 3 * ((4 + 3 * 7) * rtt + 2 * largest / min_bw));
  CHECK(plan.timeout_s == expected);
  CHECK(plan.master_addr == "192.0.2.10");
  REQUIRE(plan.hosts[3].workers.size() == 3);
  CHECK(plan.hosts[3].workers[1].line() ==
        fmt::format("env RANK=6 WORLD_SIZE=8 MASTER_ADDR=192.0.2.10 MASTER_PORT=29611 geotrain/build/geotrain-worker "
                    "--program geotrain-run/job.json --rank 6 --store-addr 192.0.2.10 --store-port 29611 --bind-addr "
                    "203.0.113.40 --steps 5 --out geotrain-run/ranks/6 --threads 1 --seed 1 --collectives p2p --device cpu "
                    "--timeout {}", expected));
  int workers = 0;
  for (const auto& h : plan.hosts) workers += static_cast<int>(h.workers.size());
  CHECK(workers == 8);
}

TEST_CASE("real plan warns about links per-host shaping cannot reproduce", "[real][plan]") {
  const Example ex;
  const RealPlan plan = make_real_plan(ex.scenario, ex.program, ex.hosts, {});
  auto count = [&](const std::string& start) {
    return std::count_if(plan.warnings.begin(), plan.warnings.end(),
                         [&](const std::string& w) { return w.rfind(start, 0) == 0; });
  };
  // Loopback inside us-east (1<->2), asia (3<->4), europe (6 links among 5, 6, 7).
  CHECK(count("host us-east runs ranks 1, 2: their 2 scenario links go over loopback") == 1);
  CHECK(count("host asia runs ranks 3, 4: their 2 scenario links go over loopback") == 1);
  CHECK(count("host europe runs ranks 5, 6, 7: their 6 scenario links go over loopback") == 1);
  CHECK(count("host oregon") == 0);
  // Every ordered host pair with more than one rank pair: 12 pairs minus none (oregon has one rank,
  // so oregon <-> us-east has 2 rank pairs, etc.): all 12 ordered pairs qualify.
  const auto shared = std::count_if(plan.warnings.begin(), plan.warnings.end(),
                                    [](const std::string& w) { return w.find(" -> ") != std::string::npos; });
  CHECK(shared == 12);
  // us-east -> europe: 6 links; the message names the minimum rate and the median delay.
  const Expected e = expected_link(ex.scenario, {1, 2}, {5, 6, 7});
  const auto it = std::find_if(plan.warnings.begin(), plan.warnings.end(),
                               [](const std::string& w) { return w.rfind("us-east -> europe: ", 0) == 0; });
  REQUIRE(it != plan.warnings.end());
  CHECK(it->find("6 scenario links shaped as one class") != std::string::npos);
  CHECK(it->find(fmt::format("bandwidth = their minimum {}", units::format_bandwidth(e.rate_Bps))) != std::string::npos);
}

TEST_CASE("real plan with --netem yes or no lists one delay variant", "[real][plan]") {
  const Example ex;
  RealPlanOptions yes, no;
  yes.netem = NetemChoice::yes;
  no.netem = NetemChoice::no;
  const RealPlan with = make_real_plan(ex.scenario, ex.program, ex.hosts, yes);
  const RealPlan without = make_real_plan(ex.scenario, ex.program, ex.hosts, no);
  for (const auto& h : with.hosts) CHECK((!h.netem.empty() && h.delayer.empty() && h.undo_delayer.empty()));
  for (const auto& h : without.hosts) CHECK((h.netem.empty() && !h.delayer.empty() && h.undo_netem.empty()));
  CHECK(format_real_plan(with).find("geotrain-delayer --tag") == std::string::npos);
  CHECK(format_real_plan(without).find("netem delay") == std::string::npos);
}

TEST_CASE("geotrain real plan prints the plan and writes it as JSON to --out", "[real][plan]") {
  const std::string out = (std::filesystem::temp_directory_path() / "geotrain-real-plan-test.json").string();
  std::filesystem::remove(out);
  const auto run = geotrain::test::sh(std::string("cd '") + GEOTRAIN_SOURCE_DIR + "' && '" + GEOTRAIN_BINARY +
                                      "' real plan scenarios/emu/case5_8ranks.yaml --hosts scenarios/real/hosts.yaml "
                                      "--json --out '" + out + "' 2>/dev/null");
  REQUIRE(run.status == 0);
  CHECK(run.out.find("## host europe: ssh ubuntu@gpu-eu.example.org, interface ens5, address 203.0.113.40, device cpu, ranks 5, 6, 7") !=
        std::string::npos);
  std::ifstream f(out);
  const auto j = nlohmann::json::parse(f);
  CHECK(j["scenario"] == "case5_8ranks");
  CHECK(j["hosts"].size() == 4);
  CHECK(j["hosts"][1]["ssh"]["port"] == 2222);
  CHECK(j["hosts"][1]["ranks"] == nlohmann::json::array({1, 2}));
  CHECK(j["hosts"][0]["shaping"]["netem"][0]["argv"] ==
        nlohmann::json::array({"tc", "qdisc", "add", "dev", "ens5", "root", "handle", "1:", "htb"}));
  CHECK(j["hosts"][3]["workers"].size() == 3);
  CHECK(j["master"]["addr"] == "192.0.2.10");
  std::filesystem::remove(out);
}

TEST_CASE("geotrain real plan --backend nccl shows each host's device, the backend and NCCL's launch",
          "[real][plan]") {
  const std::string base = std::string("cd '") + GEOTRAIN_SOURCE_DIR + "' && '" + GEOTRAIN_BINARY +
                           "' real plan scenarios/emu/case5_8ranks.yaml --backend nccl ";
  const auto run = geotrain::test::sh(base + "--hosts scenarios/real/hosts_cuda.yaml 2>&1");
  INFO(run.out);
  REQUIRE(run.status == 0);
  CHECK(run.out.find("\n# backend nccl: every process group over NCCL on each host's GPUs") != std::string::npos);
  CHECK(run.out.find("\n## host us-east: ssh ubuntu@192.0.2.20:2222, interface ens5, address 192.0.2.20, device cuda, "
                     "ranks 1, 2\n") != std::string::npos);
  // us-east's second rank: GPU 1 of that host, NCCL on its shaped interface, no InfiniBand.
  CHECK(run.out.find("\nenv RANK=2 WORLD_SIZE=8 MASTER_ADDR=192.0.2.10 MASTER_PORT=29500 NCCL_SOCKET_IFNAME=ens5 "
                     "NCCL_IB_DISABLE=1 geotrain/build/geotrain-worker --program geotrain-run/job.json --rank 2 "
                     "--store-addr 192.0.2.10 --store-port 29500 --bind-addr 192.0.2.20 --steps 5 --out "
                     "geotrain-run/ranks/2 --threads 1 --seed 1 --collectives p2p --device cuda --timeout 96 "
                     "--backend nccl --cuda-device 1\n") != std::string::npos);
  // The default backend says so too, and the hosts' device is cpu unless the file says otherwise.
  const auto gloo = geotrain::test::sh(std::string("cd '") + GEOTRAIN_SOURCE_DIR + "' && '" + GEOTRAIN_BINARY +
                                       "' real plan scenarios/emu/case5_8ranks.yaml --hosts scenarios/real/hosts.yaml 2>&1");
  REQUIRE(gloo.status == 0);
  CHECK(gloo.out.find("\n# backend gloo: ") != std::string::npos);
  CHECK(gloo.out.find(", device cpu, ranks 1, 2\n") != std::string::npos);
  CHECK(gloo.out.find("NCCL_") == std::string::npos);
  // NCCL on hosts without a GPU: one line naming them, exit 2.
  const auto refused = geotrain::test::sh(base + "--hosts scenarios/real/hosts.yaml 2>&1");
  CHECK(refused.status == 2);
  CHECK(refused.out ==
        "--backend nccl: scenarios/real/hosts.yaml: host 'oregon' (line 7) has device cpu, host 'us-east' (line 14) has "
        "device cpu, host 'asia' (line 20) has device cpu, host 'europe' (line 26) has device cpu (expected device: cuda "
        "on every host: NCCL runs on GPUs; or --backend gloo)\n");
}

}  // namespace real_plan_test
