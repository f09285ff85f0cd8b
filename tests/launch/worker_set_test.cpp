// Supervision of worker processes without root or LibTorch: /bin/sh stands in for
// geotrain-worker (no namespace), so exits, kills and hangs are exact and fast.
#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"

#include <signal.h>

#include <chrono>
#include <filesystem>

#include "emu/launch/worker_set.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace worker_set_test {

using namespace geotrain;
using namespace geotrain::emu;

namespace {

std::string test_dir(const std::string& name) {
  const auto d = geotrain::test::process_temp_path("geotrain-workerset-" + name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::vector<WorkerSpec> shells(const std::string& dir, const std::vector<std::string>& scripts) {
  std::vector<WorkerSpec> specs;
  for (std::size_t r = 0; r < scripts.size(); ++r) {
    const auto p = dir + "/" + std::to_string(r);
    specs.push_back({{"/bin/sh", "-c", scripts[r]}, "", p + ".out", p + ".err", p + ".progress"});
  }
  return specs;
}

SuperviseOptions options(double stall_s) {
  SuperviseOptions o;
  o.stall_timeout_s = stall_s;
  o.poll_s = 0.01;
  o.op_label = [](int rank, int op) { return "op" + std::to_string(rank) + "." + std::to_string(op); };
  return o;
}

bool alive(pid_t pid) { return ::kill(pid, 0) == 0; }

}  // namespace

TEST_CASE("worker set: all exit 0 is success, outputs go to their files", "[launch]") {
  const auto dir = test_dir("ok");
  WorkerSet w(shells(dir, {"echo hello", "exit 0"}));
  w.start();
  const auto r = w.supervise(options(10));
  CHECK(r.ok);
  CHECK(r.exit_status == std::vector<int>{0, 0});
  CHECK(last_line_of(dir + "/0.out") == "hello");
}

TEST_CASE("worker set: a failing rank stops the others and is named with its stderr", "[launch]") {
  const auto dir = test_dir("fail");
  WorkerSet w(shells(dir, {"sleep 30", "sleep 0.2; echo 'peer gone' >&2; exit 3", "sleep 30"}));
  w.start();
  const auto pids = w.pids();
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = w.supervise(options(10));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_FALSE(r.ok);
  CHECK(r.failed_rank == 1);
  CHECK(r.failure == "rank 1 failed before its first op: exit status 3 (stderr: peer gone)");
  // Bounded, not fast: the peers sleep 30 s, so ending well before that proves they were
  // stopped rather than waited for, on any host.
  CHECK(took < 20);
  for (pid_t p : pids) CHECK_FALSE(alive(p));
}

TEST_CASE("worker set: a rank killed by a signal is blamed, not the peers that lost it", "[launch]") {
  const auto dir = test_dir("kill");
  // Rank 1 dies by SIGKILL; rank 0 "notices" and exits 1 in the same instant.
  WorkerSet w(shells(dir, {"sleep 0.3; exit 1", "sleep 0.3; kill -9 $$", "sleep 30"}));
  w.start();
  const auto r = w.supervise(options(10));
  CHECK_FALSE(r.ok);
  // Rank 0 and 1 end within one poll of each other most of the time; either way the message
  // names the rank that ended and how.
  if (r.failed_rank == 1) CHECK(r.failure.find("rank 1 failed before its first op: killed by signal 9") == 0);
  else CHECK(r.failure.find("rank 0 failed before its first op: exit status 1") == 0);
}

TEST_CASE("worker set: a hang is detected within the stall limit and names the op", "[launch]") {
  const auto dir = test_dir("hang");
  WorkerSet w(shells(dir, {"exit 0", "sleep 30"}));
  w.start();
  {
    // What a worker does when it enters op 4 of step 2 (before it hangs there).
    ProgressMap p(dir + "/1.progress", false);
    p.begin_op(2, 4);
  }
  ::kill(w.pids()[1], SIGSTOP);
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = w.supervise(options(0.5));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_FALSE(r.ok);
  CHECK(took > 0.5);
  CHECK(took < 20);  // the stall is seen, not the 30 s sleep waited out (bounded on any host)
  CHECK(r.failed_rank == 1);
  CHECK(r.failure == "rank 1 hung in step 2 op 4 (op1.4): no rank started an op for 0.5 s (the process is stopped)");
  for (pid_t p : w.pids()) CHECK_FALSE(alive(p));
}

TEST_CASE("worker set: progress blocks carry finished steps to the launcher", "[launch]") {
  const auto dir = test_dir("progress");
  WorkerSet w(shells(dir, {"sleep 0.3"}));
  w.start();
  {
    ProgressMap p(dir + "/0.progress", false);
    p.begin_op(0, 1);
    p.end_step(0.25, 4.5, 1000);
  }
  int seen = 0;
  double loss = 0;
  auto o = options(10);
  o.on_poll = [&](const std::vector<ProgressBlock>& b) {
    seen = b[0].steps_done;
    loss = b[0].last_loss;
  };
  CHECK(w.supervise(o).ok);
  CHECK(seen == 1);
  CHECK(loss == 4.5);
}

}  // namespace worker_set_test
