// The emulated cluster for real (label emu): these need root. In CI (CI=true) they must run, so
// without root they fail there; elsewhere they are skipped with a message. Each test uses its
// own cluster names (t<pid><tag>) and address range, so tests can run in parallel, and removes
// everything it created even when a check fails (a guard runs `down --all` on its prefix).
#include <catch2/catch.hpp>

#include "tests/support/shell.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace emu_root_test {

namespace {

const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenarios = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/";

using Run = geotrain::test::ShellRun;
using geotrain::test::sh;

bool have_root() { return geotrain::test::have_root("emu tests"); }

std::string prefix(const std::string& tag) { return "t" + std::to_string(getpid()) + tag; }

// Removes every cluster of this test's prefix at scope exit, whatever happened.
struct Cleanup {
  std::string cluster_prefix;
  ~Cleanup() { sh(kBin + " emu down --all --cluster-prefix " + cluster_prefix); }
};

std::string namespaces_of(const std::string& cluster_prefix) {
  return sh("ip netns list | grep '^gt-" + cluster_prefix + "' || true").out;
}

// "[t]" keeps the pattern from matching the shell that runs pgrep/pkill.
std::string tag_pattern(const std::string& tag) { return "--tag [" + tag.substr(0, 1) + "]" + tag.substr(1); }

std::string processes_tagged(const std::string& cluster_prefix) {
  return sh("pgrep -af -- '" + tag_pattern("gt-" + cluster_prefix) + "' || true").out;
}

}  // namespace

TEST_CASE("up builds namespaces - shaping and delayers - down leaves nothing", "[emu][root]") {
  if (!have_root()) return;
  const std::string p = prefix("ud");
  Cleanup guard{p};
  const std::string host_links = sh("ip -o link | cut -d: -f2").out;
  const std::string host_rules = sh("iptables-save | grep -v '^#'").out;

  const Run up = sh(kBin + " emu up " + kScenarios + "case5_8ranks.yaml --cluster " + p +
                    " --subnet 10.241.0.0/16 --delay-backend nfqueue");
  REQUIRE(up.status == 0);
  CHECK(up.out.find("ip netns exec gt-" + p + "-0") != std::string::npos);
  const std::string namespaces = namespaces_of(p);
  CHECK(std::count(namespaces.begin(), namespaces.end(), '\n') == 9);
  // Rank 3 (Tokyo): an HTB class per destination, a filter each, an NFQUEUE rule per source.
  const std::string ns = "gt-" + p + "-3";
  const std::string classes = sh("tc -n " + ns + " class show dev eth0").out;
  CHECK(std::count(classes.begin(), classes.end(), '\n') == 7);
  // Ingress rules for everything but ICMP, one per source; egress rules for ICMP, one per destination.
  CHECK(sh("ip netns exec " + ns + " iptables-save | grep -c 'INPUT.*! -p icmp.*NFQUEUE'").out == "7\n");
  CHECK(sh("ip netns exec " + ns + " iptables-save | grep -c 'OUTPUT.*-p icmp.*NFQUEUE'").out == "7\n");
  CHECK(sh("ip netns exec " + ns + " sysctl -n net.ipv4.tcp_rmem").out == "4096\t131072\t67108864\n");
  const std::string delayers = processes_tagged(p);
  CHECK(std::count(delayers.begin(), delayers.end(), '\n') == 8);
  CHECK(sh(kBin + " emu status").out.find(p + ": 8 ranks, subnet 10.241.0.0/16, backend nfqueue") != std::string::npos);

  // A dead delayer would let traffic through undelayed (or not at all): status must say so.
  REQUIRE(sh("pkill -KILL -f -- '" + tag_pattern(ns) + " '").status == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const Run status = sh(kBin + " emu status");
  CHECK(status.status == 1);
  CHECK(status.out.find("  " + ns + ": delayer process") != std::string::npos);

  const Run down = sh(kBin + " emu down " + p);
  CHECK(down.status == 0);
  CHECK(down.out.find("removed 9 namespaces") != std::string::npos);
  CHECK(namespaces_of(p).empty());
  CHECK(processes_tagged(p).empty());
  CHECK_FALSE(std::filesystem::exists("/run/geotrain/" + p + ".json"));
  // The host's own namespace was never touched.
  CHECK(sh("ip -o link | cut -d: -f2").out == host_links);
  CHECK(sh("iptables-save | grep -v '^#'").out == host_rules);
}

namespace {

// `geotrain emu linktest` on a temporary cluster (it runs for seconds), in the background.
pid_t spawn_linktest(const std::string& cluster, const std::string& subnet) {
  const pid_t child = fork();
  if (child == 0) {
    const std::string scenario = kScenarios + "pair_262ms_0326gbps.yaml";
    execl(kBin.c_str(), kBin.c_str(), "emu", "linktest", scenario.c_str(), "--cluster", cluster.c_str(),
          "--subnet", subnet.c_str(), "--delay-backend", "nfqueue", "--out", "/dev/null", nullptr);
    _exit(127);
  }
  return child;
}

std::string guardian_of(const std::string& cluster) {
  return sh("pgrep -f -- '[e]mu guard " + cluster + " ' || true").out;
}

// Polls (bounded, generous: no timing claim) until nothing of the cluster is left.
bool gone_within(const std::string& cluster, double limit_s) {
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < limit_s) {
    if (namespaces_of(cluster).empty() && processes_tagged(cluster).empty() && guardian_of(cluster).empty() &&
        !std::filesystem::exists("/run/geotrain/" + cluster + ".json"))
      return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

}  // namespace

TEST_CASE("after kill -9 of geotrain - its guardian removes the temporary cluster", "[emu][root]") {
  if (!have_root()) return;
  const std::string p = prefix("k9");
  Cleanup guard{p};
  // linktest builds a temporary cluster (owned: it lives with the linktest process); kill -9 it
  // in the middle. No `emu down`: the guardian must notice and remove everything.
  const pid_t child = spawn_linktest(p, "10.242.0.0/16");
  for (int i = 0; i < 200 && processes_tagged(p).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  CHECK_FALSE(namespaces_of(p).empty());
  CHECK_FALSE(guardian_of(p).empty());
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  CHECK(gone_within(p, 30));
}

TEST_CASE("a cluster whose owner and guardian are both gone is reaped by the next emu status", "[emu][root]") {
  if (!have_root()) return;
  const std::string p = prefix("rp");
  Cleanup guard{p};
  const pid_t child = spawn_linktest(p, "10.244.0.0/16");
  for (int i = 0; i < 200 && processes_tagged(p).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  REQUIRE(sh("pkill -KILL -f -- '[e]mu guard " + p + " '").status == 0);
  kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  REQUIRE_FALSE(namespaces_of(p).empty());  // nobody left to remove it

  const Run status = sh(kBin + " emu status");
  CHECK(status.out.find("reaped cluster " + p + ": its owner (pid " + std::to_string(child) +
                        ") is gone; removed 3 namespaces") != std::string::npos);
  CHECK(namespaces_of(p).empty());
  CHECK(processes_tagged(p).empty());
  CHECK_FALSE(std::filesystem::exists("/run/geotrain/" + p + ".json"));
}

TEST_CASE("ping sees twice the one-way delay, as TCP does", "[emu][root]") {
  if (!have_root()) return;
  const std::string p = prefix("pg");
  Cleanup guard{p};
  // pair_5ms_2gbps with delay_scale 10: 50 ms one way each direction.
  REQUIRE(sh(kBin + " emu up " + kScenarios + "pair_5ms_2gbps.yaml --cluster " + p +
             " --subnet 10.245.0.0/16 --delay-backend nfqueue --set emulation.delay_scale=10").status == 0);
  for (const auto& [from, to] : {std::pair{"0", "10.245.0.2"}, std::pair{"1", "10.245.0.1"}}) {
    const Run ping = sh("ip netns exec gt-" + p + "-" + from + " ping -n -c 20 -i 0.05 " + to);
    INFO(ping.out);
    REQUIRE(ping.status == 0);
    std::vector<double> rtts;
    for (std::size_t at = ping.out.find("time="); at != std::string::npos; at = ping.out.find("time=", at + 5))
      rtts.push_back(std::stod(ping.out.substr(at + 5)));
    REQUIRE(rtts.size() == 20);
    std::sort(rtts.begin(), rtts.end());
    const double median = (rtts[9] + rtts[10]) / 2;
    // The hard claim: the echo request and the reply each wait their one-way delay before ping's
    // kernel receive timestamp, so no reply can come in under 2 x 50 ms (less 1 ms for timer
    // granularity). The upper bound only tells 2 x delay from 3 x (a delay applied twice, 150 ms):
    // a loaded host adds scheduling latency, which is not the emulator's error, so it leaves
    // 40 ms for that.
    CHECK(median >= 99.0);
    CHECK(median < 140.0);
  }
}

// The claim under test is the shaping, not the host's capacity: a link configured faster than
// this host can move bytes through a veth pair and the delayer cannot be reached, whatever the
// plan. So the short link's rate is sized from a measurement: the same pair configured at
// 20 Gbit/s (effectively unshaped) gives the host's ceiling C, and the link is then shaped to
// min(2 Gbit/s, C / 3). On this 2-vCPU VM C was 15-18 Gbit/s idle and 1.55-1.8 Gbit/s in busy
// minutes, so 2 Gbit/s is tested where the host can carry it and a lower rate where it cannot.
// The long link (262 ms, 0.326 Gbit/s) is judged as configured. Emulator figures at the full
// rates are in emu/README.md.
TEST_CASE("shaped pairs reach their delay and bandwidth: a short fast link and a 262 ms one", "[emu][root]") {
  if (!have_root()) return;
  const std::string p = prefix("sp");
  Cleanup guard{p};
  const std::string out = std::filesystem::temp_directory_path() / (p + "-linktest.json");
  const auto linktest = [&](const std::string& scenario, const std::string& subnet, const std::string& sets) {
    const Run r = sh(kBin + " emu linktest " + kScenarios + scenario + " --cluster " + p + " --subnet " + subnet +
                     " --delay-backend nfqueue --out " + out + sets);
    UNSCOPED_INFO(scenario << sets << "\n" << r.out);
    REQUIRE(std::filesystem::exists(out));  // a refused run is no flake: judge it now
    const auto j = nlohmann::json::parse(std::ifstream(out));
    std::filesystem::remove(out);
    CHECK(namespaces_of(p).empty());  // the temporary cluster is gone
    return std::make_pair(r, j);
  };
  const auto rate_sets = [](const std::string& rate) {
    return " --set 'network.regions.intra={delay: 5ms, bandwidth: " + rate + "}'" +
           " --set 'network.regions.pairs=[{between: [a, b], delay: 5ms, bandwidth: " + rate + "}]'";
  };

  const auto [probe_run, probe] = linktest("pair_5ms_2gbps.yaml", "10.243.0.0/16", rate_sets("20Gbps"));
  double ceiling_bps = 1e300;
  for (const auto& link : probe.at("links"))
    ceiling_bps = std::min(ceiling_bps, link.at("achieved").at("goodput_bps").get<double>());
  const double rate_mbps = std::floor(std::min(2000.0, ceiling_bps / 3 / 1e6));
  WARN("host ceiling through the delayer " << ceiling_bps / 1e9 << " Gbit/s: the short link is shaped to "
                                           << rate_mbps << " Mbit/s");
  REQUIRE(rate_mbps >= 10);  // below that the host cannot emulate anything worth testing

  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"pair_5ms_2gbps.yaml", "10.243.0.0/16", rate_sets(fmt::format("{:.0f}Mbps", rate_mbps))},
      {"pair_262ms_0326gbps.yaml", "10.244.0.0/16", ""}};
  for (const auto& [scenario, subnet, sets] : cases) {
    const auto [r, j] = linktest(scenario, subnet, sets);
    CHECK(r.status == 0);
    REQUIRE(j.at("links").size() == 2);
    for (const auto& link : j.at("links")) {
      // The README's bandwidth target: >= 90% of the configured rate.
      CHECK(link.at("error").at("goodput_of_configured").get<double>() >= 0.90);
      // The delay is judged on the fastest probe: the delayer controls when a packet may leave,
      // the host's scheduler adds to that, and the least disturbed probe shows the emulator's own
      // error. Never early (that would be a delayer bug), and late by less than a bound that
      // tells the delay applied once from twice. The median's 1 ms target (README) holds on an
      // idle host; a loaded CI host was seen several ms over it, which is not the emulator's error,
      // so it is reported here and judged by `emu linktest` runs, not by this test.
      const double one_way = link.at("configured").at("rtt_s").get<double>() / 2;
      const double fastest = link.at("achieved").at("min_rtt_s").get<double>() / 2 - one_way;
      CHECK(fastest >= -0.5e-3);
      CHECK(fastest <= std::max(2e-3, 0.1 * one_way));
      WARN(scenario << ": median one-way delay error " << link.at("error").at("delay_s").get<double>() * 1e3
                    << " ms, fastest probe " << fastest * 1e3 << " ms");
    }
  }
}

TEST_CASE("without privileges: one clear line - exit 2 - nothing created", "[emu][root]") {
  if (!have_root()) return;
  const std::string p = prefix("np");
  Cleanup guard{p};
  const std::string as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all ";
  const Run r = sh(as_nobody + kBin + " emu up " + kScenarios + "pair_5ms_2gbps.yaml --cluster " + p);
  CHECK(r.status == 2);
  CHECK(r.out == "geotrain emu up: needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network "
                 "namespaces; nothing was created (run it as root, or use --dry-run to print the plan)\n");
  CHECK(namespaces_of(p).empty());
  CHECK_FALSE(std::filesystem::exists("/run/geotrain/" + p + ".json"));
  // Root without the capabilities is refused the same way.
  const Run capless = sh("capsh --drop=cap_net_admin,cap_sys_admin -- -c '" + kBin + " emu up " +
                         kScenarios + "pair_5ms_2gbps.yaml --cluster " + p + "'");
  CHECK(capless.status == 2);
  CHECK(capless.out.find("needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN)") != std::string::npos);
  CHECK(namespaces_of(p).empty());
}

TEST_CASE("a cluster name in use and a busy address range are clear errors", "[emu][root]") {
  if (!have_root()) return;
  const std::string p = prefix("cl");
  Cleanup guard{p};
  const std::string pair = kScenarios + "pair_5ms_2gbps.yaml";
  REQUIRE(sh(kBin + " emu up " + pair + " --cluster " + p + "a --subnet 10.245.0.0/16").status == 0);

  const Run same_name = sh(kBin + " emu up " + pair + " --cluster " + p + "a --subnet 10.246.0.0/16");
  CHECK(same_name.status == 2);
  CHECK(same_name.out == "cluster '" + p + "a' already exists (namespace gt-" + p + "a-0); take it down first (geotrain emu down " + p + "a) or pick another name with --cluster\n");

  const Run same_range = sh(kBin + " emu up " + pair + " --cluster " + p + "b --subnet 10.245.128.0/24");
  CHECK(same_range.status == 2);
  CHECK(same_range.out == "--subnet = '10.245.128.0/24': address range 10.245.128.0/24 is in use by geotrain cluster '" + p +
                              "a' (pick another with --subnet, or take it down: geotrain emu down " + p + "a)\n");
  CHECK(namespaces_of(p + "b").empty());
  // The first cluster is untouched by the refused attempts.
  CHECK(sh(kBin + " emu status").out.find(p + "a: 2 ranks") != std::string::npos);
  CHECK(sh("ip -n gt-" + p + "a-0 -o -4 addr show dev eth0").out.find("inet 10.245.0.1/16") != std::string::npos);
}

}  // namespace emu_root_test
