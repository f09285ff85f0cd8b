// `geotrain emulate` for real (label emu;launch): root, network namespaces, LibTorch workers.
// In CI (CI=true) these must run, so without root they fail there; elsewhere they are skipped
// with a message. Each run builds its own cluster (name from the scenario and geotrain's pid)
// and must leave nothing behind: no namespace of that cluster, no worker process.
#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

#include <fcntl.h>
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
#include <sstream>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "emu/launch/rank_files.hpp"
#include "emu/worker/progress_block.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace emulate_root_test {

namespace {

using Clock = std::chrono::steady_clock;
const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenarios = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/";

using Run = geotrain::test::ShellRun;
using geotrain::test::sh;

bool have_root() { return geotrain::test::have_root("emulate tests"); }

std::string run_dir(const std::string& tag) {
  const auto d = (std::filesystem::temp_directory_path() / ("geotrain-emulate-" + std::to_string(getpid()) + "-" + tag)).string();
  std::filesystem::remove_all(d);
  geotrain::test::remove_at_exit(d);  // each test prints what a failure needs
  geotrain::test::remove_at_exit(d + ".log");  // spawn_emulate's output, when a test uses it
  return d;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Nothing of the run is left: its cluster's namespaces and any worker writing into its folder.
void check_nothing_left(const std::string& cluster, const std::string& dir) {
  CHECK(sh("ip netns list | grep '^gt-" + cluster + "-' || true").out.empty());
  CHECK(sh("pgrep -af '[g]eotrain-worker.*" + dir + "' || true").out.empty());
  CHECK(sh("pgrep -af -- '--tag [g]t-" + cluster + "-' || true").out.empty());
}

// geotrain emulate in the background, its output in <dir>.log.
pid_t spawn_emulate(const std::vector<std::string>& args, const std::string& log) {
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ::dup2(fd, 1);
  ::dup2(fd, 2);
  std::vector<char*> argv{const_cast<char*>(kBin.c_str()), const_cast<char*>("emulate")};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execv(kBin.c_str(), argv.data());
  ::_exit(127);
}

// Waits until rank `rank` of the run finished `steps` iterations (its progress block).
bool wait_for_steps(const std::string& dir, int rank, int steps, double limit_s) {
  const auto path = dir + "/ranks/" + std::to_string(rank) + "/progress.bin";
  const auto t0 = Clock::now();
  while (std::chrono::duration<double>(Clock::now() - t0).count() < limit_s) {
    if (std::filesystem::exists(path) && std::filesystem::file_size(path) >= sizeof(geotrain::ProgressBlock)) {
      geotrain::ProgressMap p(path, false);
      if (p.snapshot().steps_done >= steps) return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

// One strategy's 4-step run: every iteration reported, every result file there, bytes as the
// Program says, a falling loss, a trace and a compute profile whose samples name their sites,
// and nothing of its cluster left.
void check_strategy_run(const Run& r, const std::string& dir, int steps) {
  INFO(r.out);
  REQUIRE(r.status == 0);
  for (int k = 1; k <= steps; ++k)
    CHECK(r.out.find("iteration " + std::to_string(k) + "/" + std::to_string(steps) + " ") != std::string::npos);
  for (const char* f : {"summary.json", "manifest.json", "ops.csv", "iterations.csv", "trace.json",
                        "compute_profile.json", "linktest.json", "scenario.yaml", "job.json"})
    CHECK(std::filesystem::exists(dir + "/" + f));
  const auto summary = read_json(dir + "/summary.json");
  CHECK(summary["iterations"] == steps);
  CHECK(summary["bytes"]["match"] == true);
  CHECK(summary["bytes"]["counted_per_iteration"].get<double>() > 0);
  CHECK(summary["iteration_time_s"].get<double>() > 0);
  const auto& loss = summary["loss"];
  REQUIRE(loss.size() == static_cast<std::size_t>(steps));
  for (const auto& l : loss) CHECK((l.is_number() && std::isfinite(l.get<double>())));
  CHECK(loss.back().get<double>() < loss.front().get<double>());
  const auto trace = read_json(dir + "/trace.json");
  CHECK(trace["traceEvents"].size() > 3u * summary["world_size"].get<std::size_t>());
  const auto profile = read_json(dir + "/compute_profile.json");
  CHECK(profile["format"] == "geotrain-compute-profile");
  CHECK_FALSE(profile["ops"].empty());
  // Where each sample was measured (compute_variance: steps): one site per sample, after warm-up.
  for (const auto& op : profile["ops"]) {
    REQUIRE(op.contains("sample_sites"));
    CHECK(op["sample_sites"].size() == op["samples_s"].size());
    for (const auto& site : op["sample_sites"]) {
      CHECK(site[0].get<int>() < summary["world_size"].get<int>());
      CHECK(site[1].get<int>() >= summary["warmup_iterations"].get<int>());
    }
  }
  const auto manifest = read_json(dir + "/manifest.json");
  CHECK(manifest["executor"] == "emu");
  CHECK(manifest["status"] == "ok");
  check_nothing_left(manifest["cluster"].get<std::string>(), dir);
}

TEST_CASE("emulate: every strategy with 2 and 4 workers trains and accounts for its bytes", "[emu][launch][root]") {
  if (!have_root()) return;
  const std::vector<std::string> scenarios = {"ddp_ring_2",   "ddp_ring_4",     "ps_gather_2", "ps_gather_4",
                                              "ps_sharded_2", "ps_sharded_4",   "ddp_bucketed_2",
                                              "ddp_bucketed_4", "gpipe_2x1",    "gpipe_2x2"};
  const int steps = 4;
  std::vector<std::string> dirs, commands;
  for (const auto& scenario : scenarios) {
    dirs.push_back(run_dir(scenario));
    commands.push_back(kBin + " emulate " + kScenarios + scenario + ".yaml --steps " + std::to_string(steps) +
                       " --out " + dirs.back() + " --linktest-advisory");
  }
  // Four clusters at a time (each its own namespaces): a run spends most of its wall time waiting
  // on shaped links and start-up, and nothing here judges time, so the runs need not be alone.
  const auto t0 = Clock::now();
  const auto runs = geotrain::test::sh_concurrently(commands, 4);
  // No speed target here (tests must pass on any host); emulation wall times are reported by
  // the emu/launch README from real runs. Printed for the record (ctest -V).
  WARN(scenarios.size() << " emulations, four at a time: "
                        << std::chrono::duration<double>(Clock::now() - t0).count() << " s wall");
  for (std::size_t i = 0; i < scenarios.size(); ++i) {
    INFO(scenarios[i]);
    check_strategy_run(runs[i], dirs[i], steps);
  }
}

TEST_CASE("emulate: a killed worker fails the run quickly, naming the rank and its op", "[emu][launch][root]") {
  if (!have_root()) return;
  const std::string dir = run_dir("kill");
  const pid_t emulate = spawn_emulate({kScenarios + "ddp_ring_4.yaml", "--steps", "500", "--out", dir,
                                       "--skip-linktest", "--timeout", "20"}, dir + ".log");
  REQUIRE(wait_for_steps(dir, 2, 1, 600));
  REQUIRE(sh("pkill -KILL -f '[g]eotrain-worker.*--rank 2 .*" + dir + "'").status == 0);
  const auto t0 = Clock::now();
  int status = 0;
  waitpid(emulate, &status, 0);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::string out = slurp(dir + ".log");
  INFO(out);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  // Bounded, not fast: the worker's death is seen when its process exits, then the cluster is
  // torn down. 120 s only catches a hang (the run itself would go on for 500 steps).
  CHECK(took < 120);
  CHECK(out.find("rank 2 failed in step ") != std::string::npos);
  CHECK(out.find("killed by signal 9") != std::string::npos);
  const auto manifest = read_json(dir + "/manifest.json");
  CHECK(manifest["status"] == "failed");
  check_nothing_left(manifest["cluster"].get<std::string>(), dir);
}

TEST_CASE("emulate: SIGINT stops workers and removes the network", "[emu][launch][root]") {
  if (!have_root()) return;
  const std::string dir = run_dir("sigint");
  const pid_t emulate = spawn_emulate({kScenarios + "gpipe_2x2.yaml", "--steps", "500", "--out", dir,
                                       "--skip-linktest"}, dir + ".log");
  REQUIRE(wait_for_steps(dir, 3, 1, 600));
  const auto t0 = Clock::now();
  kill(emulate, SIGINT);
  int status = 0;
  waitpid(emulate, &status, 0);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  const std::string out = slurp(dir + ".log");
  INFO(out);
  CHECK(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  CHECK(took < 120);  // bounded, not fast (see the killed-worker test)
  CHECK(out.find("interrupted") != std::string::npos);
  check_nothing_left(read_json(dir + "/manifest.json")["cluster"].get<std::string>(), dir);
}

TEST_CASE("emulate: without root one line, exit 2, nothing created", "[emu][launch][root]") {
  if (!have_root()) return;  // needs root to become somebody else
  const std::string dir = run_dir("noroot");
  const Run r = sh("setpriv --reuid=65534 --regid=65534 --clear-groups " + kBin + " emulate " + kScenarios +
                   "ddp_ring_2.yaml --out " + dir);
  CHECK(r.status == 2);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  CHECK(r.out.find("geotrain emulate") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir));
}

TEST_CASE("emulate: a device's slowdown makes its compute that much longer, the profile stays neutral",
          "[emu][launch][root]") {
  if (!have_root()) return;
  const auto dir = run_dir("slowdown");
  const Run r = sh(kBin + " emulate " + kScenarios + "ddp_ring_2_slow.yaml --steps 10 --linktest-advisory --out " + dir);
  INFO(r.out);
  REQUIRE(r.status == 0);
  // Rank 1 runs the same work as rank 0, then sleeps (slowdown - 1) x as long as the work took.
  // Its per-rank ops.csv (ranks/1/ops.csv, read as the launcher reads it) holds each Compute op's
  // wall time and the thread CPU time spent in it. The work's wall time is at least its CPU time
  // (one torch thread) and the sleep uses none, so with a slowdown of 2 every op lasts at least
  // twice its CPU time, however loaded the host is. (Comparing wall times between the ranks
  // failed three times in CI under load: contention stretches either rank's ops.) A missing
  // slowdown leaves wall ~= CPU on a quiet host, so the check catches it; only a host too busy
  // to give rank 1 half a core could hide it, never make a working slowdown fail.
  const auto per_rank_forward = [&](int rank) {
    std::vector<std::pair<double, double>> wall_cpu;  // (wall, cpu) per forward op
    for (const auto& row : geotrain::emu::read_rank_ops(dir + "/ranks/" + std::to_string(rank) + "/ops.csv"))
      if (row.kind == "forward") wall_cpu.emplace_back(row.end_s - row.start_s, row.cpu_s);
    return wall_cpu;
  };
  const auto slow = per_rank_forward(1);
  const auto normal = per_rank_forward(0);
  REQUIRE(slow.size() >= 10);
  REQUIRE(normal.size() == slow.size());
  for (const auto& [wall, cpu] : slow) {
    INFO("rank 1 forward op: wall " << wall << " s, cpu " << cpu << " s");
    REQUIRE(cpu > 0);
    CHECK(wall >= 1.98 * cpu);  // 2x less the clocks' read-out granularity
  }
  // Rank 0 has no slowdown; its walls only bound its CPU times from above (one thread).
  for (const auto& [wall, cpu] : normal) CHECK(wall >= cpu * 0.98);
  // The measured profile is of the undelayed work: every forward sample in it is one of rank 0's
  // walls or one of rank 1's divided by its slowdown, never rank 1's own wall, so the simulator,
  // which multiplies by the slowdown itself, does not count it twice. (Matched sample by sample,
  // not by medians, so that load, which stretches ranks unevenly, cannot move the verdict.)
  std::vector<double> neutral;
  for (const auto& [wall, cpu] : normal) neutral.push_back(wall);
  for (const auto& [wall, cpu] : slow) neutral.push_back(wall / 2);
  const auto profile = read_json(dir + "/compute_profile.json");
  std::size_t samples = 0;
  for (const auto& e : profile.at("ops")) {
    if (e.at("kind") != "forward") continue;
    for (const double x : e.at("samples_s").get<std::vector<double>>()) {
      ++samples;
      INFO("profile forward sample " << x << " s");
      CHECK(std::any_of(neutral.begin(), neutral.end(), [&](double n) { return std::abs(n - x) < 2e-6; }));
    }
  }
  CHECK(samples >= slow.size());  // both ranks' measured steps
  const auto manifest = read_json(dir + "/manifest.json");
  check_nothing_left(manifest["cluster"].get<std::string>(), dir);
  std::filesystem::remove_all(dir);
}

}  // namespace emulate_root_test
