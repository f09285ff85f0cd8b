// `geotrain real probe` against the ssh rig (label real, root, sshd): three namespaced hosts shaped
// by `real apply` (the delayer, or netem where the kernel has it), probed, and the probed matrix
// compared with the shaping; the probe killed with SIGKILL mid-run leaves no iperf3 on any host;
// an unreachable host is refused before anything is measured.
#include <fmt/format.h>
#include <signal.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "sim/process/child_process.hpp"
#include "tests/real/rig_support.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace probe_rig_test {

namespace {

using geotrain::test::sh;
using geotrain::test::SshRig;
namespace fs = std::filesystem;

const std::string kBin = GEOTRAIN_BINARY;

// One device per host; symmetric links (ping crosses both directions) at rates and delays a
// 2-core machine carries through the delayer with room to spare.
constexpr double kDelayMs[3][3] = {{0, 10, 25}, {10, 0, 40}, {25, 40, 0}};
constexpr double kRateMbps[3][3] = {{0, 40, 20}, {40, 0, 30}, {20, 30, 0}};
const char* kBody =
    "model: {preset: gpt-tiny}\ntraining: {global_batch: 12, micro_batch: 4, steps: 1}\n"
    "strategy: {name: ddp-allreduce, algorithm: ring}\n";

std::string shaped_scenario() {
  std::string delay, rate;
  for (int i = 0; i < 3; ++i) {
    delay += i ? ", [" : "[";
    rate += i ? ", [" : "[";
    for (int j = 0; j < 3; ++j) {
      delay += (j ? ", " : "") + std::to_string(static_cast<int>(kDelayMs[i][j])) + "ms";
      rate +=
          (j ? ", " : "") +
          (i == j ? std::string("0") : std::to_string(static_cast<int>(kRateMbps[i][j])) + "Mbps");
    }
    delay += "]";
    rate += "]";
  }
  return "name: probe_shaped\ndevices: {count: 3, profile: cpu}\nnetwork:\n  matrix:\n    delay: "
         "[" +
         delay + "]\n    bandwidth: [" + rate + "]\n" + kBody;
}

std::vector<geotrain::test::RigHost> plain_hosts() {
  return {{"ns-a", ""}, {"ns-b", ""}, {"ns-c", ""}};
}

// Processes of the probe on host i: iperf3, ping, the tether's shell.
std::string probe_leftovers(const SshRig& rig, std::size_t i) {
  std::string left;
  std::istringstream pids(sh("ip netns pids " + rig.host_netns(i)).out);
  for (std::string pid; std::getline(pids, pid);) {
    // A process may exit between the listing and the read: reading its cmdline then fails
    // (ESRCH), and it is not left over.
    std::string cmdline;
    try {
      std::ifstream f("/proc/" + pid + "/cmdline");
      cmdline.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
    } catch (const std::exception&) {
      continue;
    }
    for (char& c : cmdline)
      if (c == '\0') c = ' ';
    if (cmdline.find("iperf3") != std::string::npos ||
        cmdline.find("geotrain-probe") != std::string::npos || cmdline.rfind("ping ", 0) == 0)
      left += pid + ": " + cmdline.substr(0, 120) + "\n";
  }
  return left;
}

std::string host_state(const SshRig& rig, std::size_t i) {
  // Without HTB's count of unfiltered packets (ssh from the controller).
  return sh("ip netns exec " + rig.host_netns(i) +
            " sh -c 'tc qdisc show | sed \"s/direct_packets_stat [0-9]*//\"; tc class show dev "
            "eth0; "
            "iptables -w -S; sysctl -n net.ipv4.tcp_rmem net.ipv4.tcp_congestion_control'")
      .out;
}

// The CSV rows by "src->dst": column name -> value.
std::map<std::string, std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  std::istringstream h(line);
  for (std::string c; std::getline(h, c, ',');) head.push_back(c);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::istringstream r(line);
    std::map<std::string, std::string> row;
    std::size_t k = 0;
    for (std::string c; std::getline(r, c, ',') && k < head.size(); ++k) row[head[k]] = c;
    rows[row["src"] + "->" + row["dst"]] = row;
  }
  return rows;
}

}  // namespace

TEST_CASE("real probe on three shaped rig hosts matches the shaping and changes nothing",
          "[real][rig][probe]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig(plain_hosts(), geotrain::test::build_dir());
  const std::string scenario = rig.dir() + "/shaped.yaml";
  std::ofstream(scenario) << shaped_scenario();
  const auto apply = sh(rig.controller_shell(kBin + " real apply " + scenario + " --hosts " +
                                             rig.hosts_file() + " --measure no"));
  INFO(apply.out);
  REQUIRE(apply.status == 0);
  std::vector<std::string> before;
  for (std::size_t i = 0; i < 3; ++i) before.push_back(host_state(rig, i));

  const std::string out = rig.dir() + "/network.yaml";
  const auto t0 = std::chrono::steady_clock::now();
  const auto probe =
      sh(rig.controller_shell(kBin + " real probe --hosts " + rig.hosts_file() + " --out " + out +
                              " --seconds 1 --pings 10 --flows 4"));
  const double took_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  WARN(probe.out << "(probe took " << took_s << " s)");
  REQUIRE(probe.status == 0);
  CHECK(probe.out.find("[6/6] ") != std::string::npos);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(host_state(rig, i) == before[i]);  // the probe changed nothing on the hosts
    CHECK(probe_leftovers(rig, i) == "");
  }

  // Delay within 5 % of the configured one-way delay; TCP goodput within 10 % of what the shaped
  // rate carries as payload (1448 B of each 1514 B frame that HTB counts).
  const auto rows = read_csv(rig.dir() + "/network.csv");
  REQUIRE(rows.size() == 6);
  const char* names[3] = {"ns-a", "ns-b", "ns-c"};
  std::string figures =
      "pair, delay configured/probed ms, rate Mbit/s, payload ceiling, 1 flow, N flows\n";
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      if (a == b) continue;
      const auto& row = rows.at(std::string(names[a]) + "->" + names[b]);
      const double delay = std::stod(row.at("one_way_delay_ms")),
                   one = std::stod(row.at("one_flow_mbps"));
      const double many = std::stod(row.at("n_flow_mbps")), ceiling = kRateMbps[a][b] * 1448 / 1514;
      figures +=
          fmt::format("{} -> {}, {:.0f} / {:.3f}, {:.0f}, {:.2f}, {:.2f}, {:.2f}\n", names[a],
                      names[b], kDelayMs[a][b], delay, kRateMbps[a][b], ceiling, one, many);
      INFO(names[a] << " -> " << names[b]);
      CHECK(std::abs(delay - kDelayMs[a][b]) <= 0.05 * kDelayMs[a][b]);
      CHECK(std::abs(many - ceiling) <= 0.10 * ceiling);
      CHECK(std::abs(one - ceiling) <= 0.10 * ceiling);
      CHECK(std::stod(row.at("loss_pct")) == 0);
    }
  WARN(figures);

  // The network section is a scenario's network: appended to a scenario without one, it loads.
  const std::string probed = rig.dir() + "/probed.yaml";
  std::ofstream(probed) << "name: probed\ndevices: {count: 3, profile: cpu}\n"
                        << kBody <<
      [&] {
        std::ifstream in(out);
        return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      }();
  const auto check = sh(kBin + " check " + probed);
  INFO(check.out);
  CHECK(check.status == 0);

  // The heat map where /usr/bin/python3 has matplotlib (else a warning; the next test forces that
  // case).
  if (sh("/usr/bin/python3 -c 'import matplotlib' 2>/dev/null").status == 0)
    CHECK(fs::exists(rig.dir() + "/network.png"));
  else
    CHECK(probe.out.find("warning: no heat map") != std::string::npos);

  // A second probe refuses to overwrite the first.
  const auto again =
      sh(rig.controller_shell(kBin + " real probe --hosts " + rig.hosts_file() + " --out " + out));
  CHECK(again.status == 2);
  CHECK(again.out.find(out + " exists (expected a new file name, or --force to replace it)") !=
        std::string::npos);
  CHECK(sh(rig.controller_shell(kBin + " real down --hosts " + rig.hosts_file())).status == 0);
}

TEST_CASE("real probe of two hosts without matplotlib writes network and CSV and warns",
          "[real][rig][probe]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig({{"ns-a", ""}, {"ns-b", ""}}, geotrain::test::build_dir());
  // A matplotlib that cannot be imported, first on python's path.
  fs::create_directories(rig.dir() + "/nompl");
  std::ofstream(rig.dir() + "/nompl/matplotlib.py") << "raise ImportError('hidden by the test')\n";
  const std::string out = rig.dir() + "/net.yml";
  const auto probe = sh("PYTHONPATH=" + rig.dir() + "/nompl " +
                        rig.controller_shell(kBin + " real probe --hosts " + rig.hosts_file() +
                                             " --out " + out + " --seconds 1 --pings 3 --flows 2"));
  INFO(probe.out);
  CHECK(probe.status == 0);
  CHECK(probe.out.find("[2/2] ") != std::string::npos);
  CHECK(probe.out.find("warning: no heat map: ") != std::string::npos);
  CHECK(probe.out.find("matplotlib is not installed") != std::string::npos);
  CHECK(fs::exists(out));
  CHECK(fs::exists(rig.dir() + "/net.csv"));
  CHECK_FALSE(fs::exists(rig.dir() + "/net.png"));
  for (std::size_t i = 0; i < 2; ++i) CHECK(probe_leftovers(rig, i) == "");
}

TEST_CASE("kill -9 of real probe mid-run leaves no iperf3 on any rig host and no output",
          "[real][rig][probe]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig(plain_hosts(), geotrain::test::build_dir());
  const std::string out = rig.dir() + "/network.yaml";
  geotrain::process::ChildSpec spec;
  spec.argv = rig.controller_argv({kBin, "real", "probe", "--hosts", rig.hosts_file(), "--out", out,
                                   "--seconds", "30", "--pings", "5"});
  spec.search_path = true;
  const std::string log = rig.dir() + "/probe.log";
  spec.out = spec.err = geotrain::process::Stream::file(log, true);
  auto probe = geotrain::process::ChildProcess::start(spec);
  // Killed once an iperf3 server and its client run (the first round's pair). Judged on one
  // snapshot of the hosts' processes: a count of matching command lines moves while wrappers
  // (the tether, timeout) exec, so the loop's answer is the one kept.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto server_and_client = [&] {
    std::string all;
    for (std::size_t i = 0; i < 3; ++i) all += probe_leftovers(rig, i);
    return all.find("iperf3 -s") != std::string::npos && all.find("iperf3 -c") != std::string::npos;
  };
  bool running = false;
  while (!(running = server_and_client()) && std::chrono::steady_clock::now() < deadline && !probe.try_wait())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  INFO([&] {
    std::ifstream in(log);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }());
  REQUIRE(running);
  std::this_thread::sleep_for(std::chrono::seconds(2));  // mid-test
  probe.signal(SIGKILL);
  probe.wait();
  // The tether kills the remote groups as soon as sshd sees the connections close; 15 s is far
  // above that and far below the 30 s tests and their `timeout`.
  std::string left;
  const auto killed = std::chrono::steady_clock::now(), until = killed + std::chrono::seconds(15);
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    left.clear();
    for (std::size_t i = 0; i < 3; ++i) left += probe_leftovers(rig, i);
  } while (!left.empty() && std::chrono::steady_clock::now() < until);
  WARN("nothing of the probe left on the hosts after "
       << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count()
       << " s (polled every 0.2 s)");
  CHECK(left == "");
  CHECK_FALSE(fs::exists(out));
  CHECK_FALSE(fs::exists(rig.dir() + "/network.csv"));
}

TEST_CASE("real probe with one host unreachable exits 2 naming it and measures nothing",
          "[real][rig][probe]") {
  if (!geotrain::test::rig_ready()) return;
  SshRig rig(plain_hosts(), geotrain::test::build_dir());
  rig.stop_sshd(1);
  const std::string out = rig.dir() + "/network.yaml";
  const auto probe = sh(rig.controller_shell(kBin + " real probe --connect-timeout 2 --hosts " +
                                             rig.hosts_file() + " --out " + out));
  INFO(probe.out);
  CHECK(probe.status == 2);
  CHECK(probe.out.rfind(rig.hosts_file() + ":11: host ns-b (root@10.199.0.2): ssh failed: ", 0) ==
        0);
  CHECK(probe.out.find("(expected the host reachable over ssh with a key") != std::string::npos);
  CHECK(probe.out.find("ping:") == std::string::npos);
  CHECK_FALSE(fs::exists(out));
}

}  // namespace probe_rig_test
