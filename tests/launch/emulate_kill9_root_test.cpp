// kill -9 of `geotrain emulate` at many moments (label emu;launch; root). Nothing may outlive the
// launcher for long, without anyone running `emu down`: its guardian (emu/net/cluster_guard.hpp)
// removes the cluster. After each kill the test polls (bounded, generous: no timing claim) until
// no namespace, delayer, worker, guardian or state file of that run's cluster is left.
// The moments: fixed events (early set-up, cluster up, training, workers done = teardown next) and
// pseudo-random delays from a fixed seed; wherever a kill lands, the assertion must hold.
#include <catch2/catch.hpp>

#include "tests/support/shell.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <thread>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace emulate_kill9_root_test {

namespace {

using Clock = std::chrono::steady_clock;
const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenario = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml";
using geotrain::test::sh;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// What is left of a run: namespaces of its cluster, processes tagged with it (delayers), its
// guardian, workers writing into its folder, its state file. "" = nothing.
std::string leftovers(const std::string& cluster, const std::string& dir) {
  std::string left = sh("ip netns list | grep '^gt-" + cluster + "-' || true").out;
  left += sh("pgrep -af -- '--tag [g]t-" + cluster + "-' || true").out;
  left += sh("pgrep -af -- '[e]mu guard " + cluster + " ' || true").out;
  left += sh("pgrep -af '[g]eotrain-worker.*" + dir + "' || true").out;
  if (std::filesystem::exists("/run/geotrain/" + cluster + ".json")) left += "state file " + cluster + ".json\n";
  return left;
}

bool cluster_exists(const std::string& cluster) {
  return !sh("ip netns list | grep '^gt-" + cluster + "-' || true").out.empty();
}

bool workers_running(const std::string& dir) {
  return !sh("pgrep -f '[g]eotrain-worker.*" + dir + "' || true").out.empty();
}

pid_t spawn_emulate(const std::string& dir, int steps) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = ::open((dir + ".log").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  const std::string s = std::to_string(steps);
  ::execl(kBin.c_str(), kBin.c_str(), "emulate", kScenario.c_str(), "--steps", s.c_str(), "--out", dir.c_str(),
          "--linktest-pairs", "sample:1", nullptr);
  ::_exit(127);
}

// Polls `ready` every 10 ms for up to limit_s; true when it held.
bool wait_until(const std::function<bool()>& ready, double limit_s) {
  const auto t0 = Clock::now();
  while (since(t0) < limit_s) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

struct Moment {
  std::string name;
  std::function<void(const std::string& cluster, const std::string& dir)> wait;  // returns when to kill
};

}  // namespace

TEST_CASE("emulate: after kill -9 at any moment, nothing of its cluster outlives it", "[emu][launch][root]") {
  if (!geotrain::test::have_root("emulate kill -9 tests")) return;
  const std::string host_links = sh("ip -o link | cut -d: -f2").out;
  const std::string host_rules = sh("iptables-save | grep -v '^#'").out;
  const std::string host_qdiscs = sh("tc qdisc show").out;
  std::mt19937 random(20261125);  // fixed seed: the same delays on every run
  std::uniform_real_distribution<double> delay_s(0.0, 4.0);
  std::vector<Moment> moments = {
      {"set-up, 0.1 s after start", [](auto&, auto&) { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }},
      {"as soon as the cluster's namespaces exist", [](auto& c, auto&) { wait_until([&] { return cluster_exists(c); }, 60); }},
      {"training (workers running)", [](auto&, auto& d) { wait_until([&] { return workers_running(d); }, 90); }},
      {"workers done, teardown next",
       [](auto&, auto& d) {
         wait_until([&] { return workers_running(d); }, 90);
         wait_until([&] { return !workers_running(d); }, 90);
       }}};
  for (int k = 0; k < 3; ++k) {
    const double s = delay_s(random);
    moments.push_back({"seeded random delay " + std::to_string(s) + " s",
                       [s](auto&, auto&) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }});
  }
  int n = 0;
  for (const auto& moment : moments) {
    const std::string dir = (std::filesystem::temp_directory_path() /
                             ("geotrain-kill9-" + std::to_string(getpid()) + "-" + std::to_string(n++))).string();
    std::filesystem::remove_all(dir);
    // Few steps for the "teardown next" moment, so the workers end soon; many for the others.
    const int steps = moment.name.rfind("workers done", 0) == 0 ? 2 : 400;
    const pid_t pid = spawn_emulate(dir, steps);
    // emulate names its cluster <scenario>_<pid> (emu/launch/run_setup.cpp).
    const std::string cluster = "ddp_ring_2_" + std::to_string(pid % 1000000);
    moment.wait(cluster, dir);
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    INFO("killed at: " << moment.name << "; cluster " << cluster);
    std::string left;
    wait_until([&] { return (left = leftovers(cluster, dir)).empty(); }, 30);
    CHECK(left == "");
    sh(kBin + " emu down --all --cluster-prefix " + cluster);  // whatever the check found
    std::filesystem::remove_all(dir);
    std::filesystem::remove(dir + ".log");
  }
  // Nothing was ever created in the host's own namespace.
  CHECK(sh("ip -o link | cut -d: -f2").out == host_links);
  CHECK(sh("iptables-save | grep -v '^#'").out == host_rules);
  CHECK(sh("tc qdisc show").out == host_qdiscs);
}

}  // namespace emulate_kill9_root_test
