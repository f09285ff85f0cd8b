// `geotrain real probe` without ssh: the rounds, the parsers, the tether run by the local sh as a
// login shell would, the network section loaded as a scenario's, atomic writes, bad flags through
// the binary (exit 2 before any ssh). The probe over ssh: probe_rig_test.cpp.
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "real/hosts_file.hpp"
#include "real/probe_remote.hpp"
#include "real/probe_report.hpp"
#include "real/probe_rounds.hpp"
#include "sim/common/error.hpp"
#include "sim/process/child_process.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace probe_test {

using namespace geotrain;
using namespace geotrain::real;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string temp_dir(const std::string& name) {
  const std::string dir = geotrain::test::process_temp_path(name);
  fs::create_directories(dir);
  geotrain::test::remove_at_exit(dir);
  return dir;
}

HostsFile three_hosts() {
  HostsFile h;
  h.path = "hosts.yaml";
  for (int i = 0; i < 3; ++i) {
    HostSpec s;
    s.name = "h" + std::to_string(i);
    s.data_address = "10.0.0." + std::to_string(i + 1);
    h.hosts.push_back(s);
  }
  return h;
}

// Pair (a, b): rtt 2 (10 (a + b + 1)) ms, one flow 10 (a + 1) Mbit/s, N flows twice that.
std::vector<ProbePair> measured(int n) {
  std::vector<ProbePair> pairs;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b) {
        ProbePair p{a, b};
        p.rtt_min_ms = 20.0 * (a + b + 1);
        p.rtt_avg_ms = p.rtt_min_ms + 0.5;
        p.pings_sent = p.pings_received = 20;
        p.one_flow_mbps = 10.0 * (a + 1);
        p.n_flow_mbps = 2 * p.one_flow_mbps;
        pairs.push_back(p);
      }
  pairs[1].loss_pct = 5, pairs[1].pings_received = 19;
  return pairs;
}

const char* kBase =
    "name: probed\ndevices: {count: 3, profile: A100}\nmodel: {preset: gpt-tiny}\n"
    "training: {global_batch: 12, micro_batch: 4}\nstrategy: {name: ddp-allreduce, algorithm: "
    "ring}\n";

}  // namespace

TEST_CASE("probe rounds hold every ordered pair once and no host twice in a round",
          "[real][probe]") {
  CHECK(probe_rounds(1).empty());
  for (int n = 2; n <= 9; ++n) {
    INFO("hosts " << n);
    const auto rounds = probe_rounds(n);
    CHECK(rounds.size() == static_cast<std::size_t>(n % 2 == 0 ? 2 * (n - 1) : 2 * n));
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        CHECK(a != b);
        CHECK(busy.insert(a).second);
        CHECK(busy.insert(b).second);
        CHECK(seen.insert({a, b}).second);
      }
      CHECK(round.size() == static_cast<std::size_t>(n / 2));
    }
    CHECK(seen.size() == static_cast<std::size_t>(n * (n - 1)));
  }
}

TEST_CASE("ping summaries - loss - every packet lost - per destination lines", "[real][probe]") {
  const std::string out =
      "10.0.0.2 PING 10.0.0.2 (10.0.0.2) 56(84) bytes of data.\n10.0.0.3 PING 10.0.0.3 (10.0.0.3) "
      "56(84) bytes\n"
      "10.0.0.2 \n10.0.0.2 --- 10.0.0.2 ping statistics ---\n"
      "10.0.0.2 20 packets transmitted, 19 received, 5% packet loss, time 3805ms\n"
      "10.0.0.2 rtt min/avg/max/mdev = 40.120/40.480/41.900/0.310 ms\n"
      "10.0.0.3 --- 10.0.0.3 ping statistics ---\n"
      "10.0.0.3 10 packets transmitted, 0 received, +3 errors, 100% packet loss, time 9000ms\n";
  const auto a = parse_ping_summary(lines_of(out, "10.0.0.2"));
  CHECK(a.sent == 20);
  CHECK(a.received == 19);
  CHECK(a.loss_pct == Approx(5));
  REQUIRE(a.min_ms);
  CHECK(*a.min_ms == Approx(40.12));
  CHECK(*a.avg_ms == Approx(40.48));
  const auto b = parse_ping_summary(lines_of(out, "10.0.0.3"));
  CHECK(b.loss_pct == Approx(100));
  CHECK_FALSE(b.min_ms);
  CHECK(lines_of(out, "10.0.0.4").empty());
  CHECK_THROWS_WITH(parse_ping_summary("ping: unknown host\n"), "no summary in ping's output");
}

TEST_CASE("iperf client output splits into its one-flow and N-flow documents", "[real][probe]") {
  const auto [one, many] = split_iperf_runs("#one-flow\n{\"a\": 1}\n#n-flow\n{\"b\": 2}\n");
  CHECK(one == "{\"a\": 1}\n");
  CHECK(many == "{\"b\": 2}\n");
  CHECK_THROWS_WITH(split_iperf_runs("bash: iperf3: not found"),
                    "iperf3: no output of the one-flow test");
}

TEST_CASE("the tether ends the command's group when stdin closes and passes its status on",
          "[real][probe]") {
  // The remote command string, run by the local sh as sshd's login shell would (sh -c '<string>').
  process::ChildSpec spec;
  // A duration no other test sleeps for: ctest runs tests side by side, and the check below looks
  // at every process of the machine (real_run_test's wrappers sleep 300 while this one runs).
  spec.argv = {"sh", "-c", tethered({"sh", "-c", "sleep 317 & sleep 317; exit 3"})};
  spec.search_path = true;
  spec.in = process::Stream::pipe();
  spec.out = spec.err = process::Stream::null();
  auto child = process::ChildProcess::start(spec);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK_FALSE(child.try_wait());
  const auto closed = std::chrono::steady_clock::now();
  child.close_fds();
  const auto code = child.wait_for(10);  // far above the few ms it takes
  REQUIRE(code);
  CHECK(*code == 128 + SIGKILL);
  CHECK(std::chrono::steady_clock::now() - closed < std::chrono::seconds(10));
  // Neither sleep of the group is left.
  CHECK(geotrain::test::sh("pgrep -f '^sleep 317$' | wc -l").out.find("0") == 0);

  spec.argv = {"sh", "-c", tethered({"sh", "-c", "echo out; echo err >&2; exit 3"})};
  spec.out = spec.err = process::Stream::pipe();
  auto done = process::ChildProcess::start(spec);
  REQUIRE(done.wait_for(10));
  CHECK(*done.exit_code() == 3);
}

TEST_CASE("the probed network section loads as a scenario's network, devices in host order",
          "[real][probe]") {
  const HostsFile hosts = three_hosts();
  ProbeOptions o;
  const std::string yaml = probe_network_yaml(hosts, measured(3), o);
  INFO(yaml);
  CHECK(yaml.find("# warning: h0 -> h2 lost 5 % of 20 pings") != std::string::npos);
  CHECK(yaml.find("symmetric: false") != std::string::npos);
  const Scenario s = parse_scenario(std::string(kBase) + yaml, "probed.yaml", ".");
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      if (a == b) continue;
      INFO(a << " -> " << b);
      CHECK(s.network.delay_s(a, b) == Approx(0.010 * (a + b + 1)));
      CHECK(s.network.bandwidth_Bps(a, b) == Approx(20e6 * (a + 1) / 8));
    }
  const std::string csv = probe_csv(hosts, measured(3), o);
  CHECK(
      csv.rfind("src,dst,src_address,dst_address,rtt_min_ms,rtt_avg_ms,one_way_delay_ms,loss_pct,",
                0) == 0);
  CHECK(
      csv.find("\nh0,h2,10.0.0.1,10.0.0.3,60.000,60.500,30.000,5.000,20,19,10.000,20.000,8,5\n") !=
      std::string::npos);
}

TEST_CASE("probe outputs - refused names and existing files - atomic writes", "[real][probe]") {
  CHECK(probe_outputs("a/net.yaml").csv == "a/net.csv");
  CHECK(probe_outputs("net.yml").png == "net.png");
  CHECK_THROWS_AS(probe_outputs("net.csv"), InputError);
  const std::string dir = temp_dir("geotrain-probe-out");
  const ProbeOutputs out = probe_outputs(dir + "/net.yaml");
  CHECK(output_problems(out, false).empty());
  CHECK(output_problems(probe_outputs(dir + "/none/net.yaml"), false).size() == 1);
  write_file_atomically(out.yaml, "first\n", false);
  CHECK(slurp(out.yaml) == "first\n");
  const auto problems = output_problems(out, false);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0] == "--out " + out.yaml + ": " + out.yaml +
                           " exists (expected a new file name, or --force to replace it)");
  CHECK(output_problems(out, true).empty());
  CHECK_THROWS_AS(write_file_atomically(out.yaml, "second\n", false), Error);
  CHECK(slurp(out.yaml) == "first\n");
  write_file_atomically(out.yaml, "second\n", true);
  CHECK(slurp(out.yaml) == "second\n");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  CHECK(files == 1);  // no temporary file left
}

TEST_CASE("real probe: hosts without interface or worker - bad flags - exit 2 before any ssh",
          "[real][probe]") {
  const std::string dir = temp_dir("geotrain-probe-flags");
  const std::string hosts = dir + "/hosts.yaml";
  // Port 9 of a TEST-NET address: nothing is reached, so every case must fail before ssh.
  std::ofstream(hosts)
      << "hosts:\n  - {name: a, address: root@192.0.2.1}\n  - {name: b, address: root@192.0.2.2}\n";
  CHECK(load_hosts_for_probe(hosts).hosts.size() == 2);
  CHECK_THROWS_AS(load_hosts_only(hosts), ScenarioError);
  const std::string bin = std::string("'") + GEOTRAIN_BINARY + "' real probe --connect-timeout 1 ";
  std::ofstream(dir + "/taken.yaml") << "x\n";
  const auto exists =
      geotrain::test::sh(bin + "--hosts " + hosts + " --out " + dir + "/taken.yaml");
  CHECK(exists.status == 2);
  CHECK(exists.out ==
        "--out " + dir + "/taken.yaml: " + dir +
            "/taken.yaml exists (expected a new file name, or --force to replace it)\n");
  const auto csv = geotrain::test::sh(bin + "--hosts " + hosts + " --out " + dir + "/n.csv");
  CHECK(csv.status == 2);
  CHECK(csv.out.find("not a .yaml file name") != std::string::npos);
  std::ofstream(dir + "/one.yaml") << "hosts:\n  - {name: a, address: root@192.0.2.1}\n";
  const auto one =
      geotrain::test::sh(bin + "--hosts " + dir + "/one.yaml --out " + dir + "/n.yaml");
  CHECK(one.status == 2);
  CHECK(one.out.find("expected at least 2 hosts") != std::string::npos);
  const auto flows =
      geotrain::test::sh(bin + "--hosts " + hosts + " --out " + dir + "/n.yaml --flows 1");
  CHECK(flows.status == 2);
  std::ofstream(dir + "/bad.yaml")
      << "hosts:\n  - {name: a, address: root@192.0.2.1, colour: red}\n";
  const auto bad =
      geotrain::test::sh(bin + "--hosts " + dir + "/bad.yaml --out " + dir + "/n.yaml");
  CHECK(bad.status == 2);
  CHECK(bad.out.find(dir + "/bad.yaml:2: ") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/n.yaml"));
}

}  // namespace probe_test
