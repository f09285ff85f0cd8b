// Merging per-rank worker files into the run's results, on synthetic files with known times and
// bytes (no root, no worker): iteration figures, medians without warm-up, byte accounting against
// the Program, the simulator's ops.csv columns, the trace and the compute profile.
#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "emu/launch/program_bytes.hpp"
#include "emu/launch/rank_files.hpp"
#include "sim/results/csv_line.hpp"
#include "emu/launch/run_results.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/scenario/model_spec.hpp"
#include "sim/workload/straggler_schedule.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace results_test {

using namespace geotrain;
using namespace geotrain::emu;

namespace {

const std::string kScenarios = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/";

// Per-rank files as a worker writes them: op i of step s runs [b(s) + i/100, b(s) + i/100 + 0.004 * (r+1))
// with b(s) = s + 0.01 s (s - 1) / 2 (so step s >= 1 completes 1 + 0.01 (s - 1) after step s - 1),
// iteration time 0.5 + 0.1 * r + 0.01 * s, loss 5 - s on the ranks that compute it.
std::string write_rank_files(const Program& p, const Scenario& s, int steps, const std::string& name) {
  const auto dir = test::process_temp_path("geotrain-launch-test-" + name);
  std::filesystem::remove_all(dir);
  for (int r = 0; r < p.world_size; ++r) {
    const auto rd = fmt::format("{}/{}", dir, r);
    std::filesystem::create_directories(rd);
    std::ofstream ops(rd + "/ops.csv"), its(rd + "/iterations.csv");
    ops << "rank,op,label,kind,start_s,end_s,bytes,step,cpu_s\n";
    its << "step,time_s,loss,tokens_per_s,host_busy_s\n";
    const auto& list = p.ranks[static_cast<std::size_t>(r)];
    bool loss = false;
    for (int step = 0; step < steps; ++step) {
      for (std::size_t i = 0; i < list.size(); ++i) {
        const double start = step + 0.01 * step * (step - 1) / 2 + static_cast<double>(i) / 100;
        const double b = program_op_bytes(p, r, static_cast<int>(i), s.model.gradient_dtype);
        if (const auto* c = list[i].as<ComputeOp>(); c && c->layer_end == s.model.layers && c->kind == ComputeKind::forward)
          loss = true;
        ops << fmt::format("{},{},\"{}\",k,{:.9f},{:.9f},{},{},{}\n", r, i, list[i].label, start,
                           start + 0.004 * (r + 1), b, step, list[i].as<ComputeOp>() ? "0.003" : "");
      }
      // The machine's busy CPU seconds grow by 1.5 per step (the run's steps take about 1 s).
      its << fmt::format("{},{},{},1000,{}\n", step, 0.5 + 0.1 * r + 0.01 * step, loss ? std::to_string(5.0 - step) : "",
                         100 + 1.5 * step);
    }
  }
  return dir;
}

}  // namespace

TEST_CASE("rank files: quoted labels, empty bytes and loss, bad rows named by line", "[launch]") {
  CHECK(results::split_csv_line(R"(1,"a, ""b""",,x)") == std::vector<std::string>{"1", "a, \"b\"", "", "x"});
  const auto dir = test::process_temp_path("geotrain-launch-test-files");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/ops.csv") << "rank,op,label,kind,start_s,end_s,bytes,step,cpu_s\n1,2,\"x, y\",send,0.5,0.75,,3,\n";
  const auto rows = read_rank_ops(dir + "/ops.csv");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].label == "x, y");
  CHECK(rows[0].bytes == -1);
  CHECK(rows[0].step == 3);
  std::ofstream(dir + "/iterations.csv") << "step,time_s,loss,tokens_per_s,host_busy_s\n0,0.5,,100,\n1,zz,1,1,\n";
  CHECK_THROWS_WITH(read_rank_iterations(dir + "/iterations.csv"), Catch::Contains("iterations.csv:3"));
  CHECK_THROWS_AS(read_rank_ops(dir + "/missing.csv"), InputError);
}

TEST_CASE("program bytes: a ring all-reduce member sends 2(N-1)/N of the buffer", "[launch]") {
  const Scenario s = load_scenario(kScenarios + "ddp_ring_4.yaml", {});
  const Program p = build_program(s);
  const double grad = stage_gradient_bytes(s.model, 0, s.model.layers);
  const auto per_rank = program_bytes_per_rank(p, s.model.gradient_dtype);
  REQUIRE(per_rank.size() == 4);
  // Chunks are whole elements: within 4 elements per step of the closed form.
  for (double b : per_rank) CHECK(std::abs(b - 2.0 * 3 / 4 * grad) <= 6 * 4 * 4);
  double sum = 0;
  for (double b : per_rank) sum += b;
  CHECK(sum == Approx(2.0 * 3 * grad).epsilon(1e-6));
}

TEST_CASE("results: iteration figures, medians without warm-up, bytes match the Program", "[launch]") {
  const Scenario s = load_scenario(kScenarios + "gpipe_2x2.yaml", {});
  const Program p = build_program(s);
  const int steps = 4;
  const auto dir = write_rank_files(p, s, steps, "gpipe");
  const auto m = read_rank_measurements(dir, p.world_size);
  const auto f = step_figures(p, m);
  REQUIRE(f.size() == steps);
  // Step 0 completes when the last rank's last op ends; later steps at the completion intervals.
  double first = 0;
  for (int r = 0; r < p.world_size; ++r)
    first = std::max(first, static_cast<double>(p.ranks[static_cast<std::size_t>(r)].size() - 1) / 100 + 0.004 * (r + 1));
  CHECK(f[0].time_s == Approx(first));
  for (int k = 0; k < steps; ++k) {
    if (k > 0) CHECK(f[k].time_s == Approx(1 + 0.01 * (k - 1)));  // completion intervals
    CHECK(f[k].loss == Approx(5.0 - k));                          // mean of the two last stages
  }
  CHECK(median_iteration_time(f, 1) == Approx(1.01));  // steps 1..3: median of 1.00 1.01 1.02
  CHECK(median_iteration_time(f, 0) == Approx(first < 1 ? 1.005 : 1.015));
  CHECK(median_iteration_time(f, 1, 3) == Approx(1.005));  // a drain from step 3: steps 1..2
  CHECK(median_iteration_time(f, 3, 2) == Approx(1.02));   // nothing steady after the warm-up
  // A cycle of 2 (Moshpit's two grid axes): means of steps 1-2 and 2-3.
  CHECK(median_iteration_time(f, 1, 4, 2) == Approx((1.005 + 1.015) / 2));
  CHECK(steady_steps(m, steps) == steps);  // a synchronous pipeline has no drain
  const auto j = emu_summary_json(s, p, m, f, {1, 10, 9, "p2p"});
  CHECK(j["steady_iterations"] == steps);
  CHECK(j["bytes"]["match"] == true);
  CHECK(j["bytes"]["counted_per_iteration"].get<double>() == j["bytes"]["program_per_iteration"].get<double>());
  CHECK(j["tokens_per_s"].get<double>() == Approx(1024 / 1.01));
  CHECK(j["loss"].size() == steps);
}

TEST_CASE("results: a rank that counted other bytes or lost ops is reported", "[launch]") {
  const Scenario s = load_scenario(kScenarios + "ddp_ring_2.yaml", {});
  const Program p = build_program(s);
  const auto dir = write_rank_files(p, s, 2, "ddp");
  auto m = read_rank_measurements(dir, p.world_size);
  for (auto& row : m.ops[1])
    if (row.bytes > 0) row.bytes += 4;
  const auto j = emu_summary_json(s, p, m, step_figures(p, m), {1, 1, 1, "p2p"});
  CHECK(j["bytes"]["match"] == false);
  CHECK(j["ranks"][0]["bytes_match"] == true);
  CHECK(j["ranks"][1]["bytes_match"] == false);
  m.ops[0].pop_back();
  CHECK_THROWS_WITH(step_figures(p, m), Catch::Contains("rank 0 recorded"));
}

TEST_CASE("results: ops.csv in the simulator's columns, trace events, compute profile", "[launch]") {
  const Scenario s = load_scenario(kScenarios + "ddp_ring_2.yaml", {});
  const Program p = build_program(s);
  const int steps = 3;
  const auto m = read_rank_measurements(write_rank_files(p, s, steps, "files"), p.world_size);
  std::stringstream ops;
  write_ops_csv(p, m, ops);
  std::string header;
  std::getline(ops, header);
  CHECK(header == "rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,idle_s,"
                  "bytes_sent,peer,group");
  std::size_t rows = 0, total = 0;
  for (std::string line; std::getline(ops, line);) ++rows;
  for (const auto& r : p.ranks) total += r.size() * steps;
  CHECK(rows == total);

  std::stringstream trace;
  write_trace(p, m, trace);
  const auto t = nlohmann::json::parse(trace.str());
  CHECK(t["traceEvents"].size() == total + 3 * 2);  // + process and 2 thread names per rank
  const auto& first = t["traceEvents"][6];
  CHECK(first["ph"] == "X");
  CHECK(first["dur"].get<double>() == Approx(4000));  // rank 0 ops last 4 ms

  // Without the warm-up step: every compute op of rank r lasted 0.004 (r+1) s.
  const auto samples = profile_samples(p, m, 1);
  const auto entries = summarize_samples(samples);
  REQUIRE_FALSE(entries.empty());
  std::size_t computes = 0;
  for (const auto& op : p.ranks[0]) computes += op.as<ComputeOp>() ? 1 : 0;
  CHECK(samples.size() == 2 * computes * steps);
  std::size_t warmups = 0;
  for (const auto& x : samples) {
    CHECK(x.warmup == (x.site.step == 0));
    warmups += x.warmup ? 1 : 0;
  }
  CHECK(warmups == 2 * computes);
  std::size_t measured = 0, kept_apart = 0;
  for (const auto& e : entries) {
    CHECK(e.median_s == Approx(0.006));  // median of 0.004 and 0.008
    measured += e.samples_s.size();
    // The warm-up step is kept apart, with its sites (the simulation replays it).
    REQUIRE(e.warmup_samples_s.size() == e.warmup_sample_sites.size());
    kept_apart += e.warmup_samples_s.size();
    for (const auto& site : e.warmup_sample_sites) CHECK(site.step == 0);
  }
  CHECK(measured == 2 * computes * (steps - 1));
  CHECK(kept_apart == 2 * computes);
  // A device twice as slow: its ops count at half their measured time (a device-neutral profile).
  std::vector<double> slowdown(static_cast<std::size_t>(p.world_size), 1.0);
  for (std::size_t r = 0; r < slowdown.size(); ++r) slowdown[r] = static_cast<double>(r + 1);
  for (const auto& e : summarize_samples(profile_samples(p, m, 1, slowdown)))
    CHECK(e.median_s == Approx(0.004));  // 0.004 (r + 1) / (r + 1)
}

// Issue 31: the worker sleeps the seeded straggler draw inside a Compute op's measured time
// (interpreter.cpp), and the simulator sleeps the same draw on top of the profiled time
// (rank_actor.cpp); the profile must hold the work alone, or every straggler sleeps twice.
TEST_CASE("results: the compute profile leaves out the straggler sleeps the worker took", "[launch]") {
  const Scenario s = load_scenario(kScenarios + "diloco_timeout_3.yaml", {});
  REQUIRE(s.stragglers.probability == 0.2);
  REQUIRE(s.stragglers.sleep_s == 0.15);
  const Program p = build_program(s);
  const int steps = 6;
  const auto dir = write_rank_files(p, s, steps, "stragglers");
  auto m = read_rank_measurements(dir, p.world_size);
  // As the worker times an op: the straggler sleep, then the work (0.004 (r + 1) s) at the
  // device's slowdown (the worker sleeps (slowdown - 1) x the work after it).
  const StragglerSchedule schedule(s.stragglers);
  int slept = 0;  // sleeps in the profiled steps (after the warm-up step)
  const auto time_ops = [&](double slowdown) {
    slept = 0;
    for (int r = 0; r < p.world_size; ++r)
      for (auto& row : m.ops[static_cast<std::size_t>(r)]) {
        const Op& op = p.ranks[static_cast<std::size_t>(r)].at(static_cast<std::size_t>(row.op));
        if (!op.as<ComputeOp>()) continue;
        const double sleep = schedule.sleep_s(r, row.step, row.op, op);
        slept += sleep > 0 && row.step >= 1;
        row.end_s = row.start_s + sleep + slowdown * 0.004 * (r + 1);
      }
  };
  time_ops(1);
  REQUIRE(slept >= 5);  // the seeded draws do put sleeps into the profiled steps
  // The run's compute_profile.json (emulate and real run write it) holds the work alone: every
  // entry's samples are 0.004, 0.008 and 0.012 s, as many of each, whether or not the op slept.
  write_run_results(s, p, dir, m, {1, 10, 9, "p2p"});
  const auto entries = read_compute_profile(dir + "/compute_profile.json", s);
  REQUIRE_FALSE(entries.empty());
  for (const auto& e : entries) {
    CHECK(e.median_s == Approx(0.008).margin(1e-12));
    for (double x : e.samples_s) CHECK(x <= 0.012 + 1e-12);
    CHECK_FALSE(e.warmup_samples_s.empty());  // the warm-up step's, also without the sleeps
    for (double x : e.warmup_samples_s) CHECK(x <= 0.012 + 1e-12);
  }
  // Without the scenario's stragglers the sleeps stay in (what profiles held before issue 31).
  int with_sleep = 0;
  for (const auto& x : profile_samples(p, m, 1))
    with_sleep += !x.warmup && x.seconds > 0.004 * (x.site.rank + 1) + 0.1;
  CHECK(with_sleep == slept);
  // On devices twice as slow: the sleep comes off before the slowdown divides.
  time_ops(2);
  const std::vector<double> slowdowns(static_cast<std::size_t>(p.world_size), 2.0);
  const auto samples = profile_samples(p, m, 1, slowdowns, s.stragglers);
  REQUIRE_FALSE(samples.empty());
  for (const auto& x : samples) CHECK(x.seconds == Approx(0.004 * (x.site.rank + 1)).margin(1e-12));
}

}  // namespace results_test
