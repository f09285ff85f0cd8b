// simulation.compute_variance: sampled in the engine, against closed forms: every compute op
// sleeps the interpolated quantile of its profile samples at its own draw, so a 1-rank run's
// iteration i takes exactly quantile({0.1, 0.2, 0.3}, u_i), and two ranks meeting in a 0-byte
// all-reduce on 0-latency links take the larger of their two draws.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/common/quantile.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim/workload/compute_sampler.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"
#include "tests/support/remove_at_exit.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compute_variance_sim_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr int kIterations = 12;
const std::vector<double> kSamples{0.1, 0.2, 0.3};

// One forward op over layer [0, 1) of 1 sequence, measured 0.3, 0.1, 0.2 s (median 0.2).
std::string write_profile() {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("geotrain-compute-variance-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  geotrain::test::remove_at_exit(dir.string());
  const auto path = dir / "profile.json";
  std::ofstream(path) << R"({"format": "geotrain-compute-profile", "version": 1,
    "ops": [{"kind": "forward", "layer_begin": 0, "layer_end": 1, "sequences": 1, "flops": 1e12,
             "median_s": 0.2, "samples_s": [0.3, 0.1, 0.2]}]})";
  return path.string();
}

Scenario scenario(int ranks, ComputeVariance variance, std::uint64_t seed) {
  Scenario s = uniform_scenario(ranks, 0, 1e9);
  s.model.layers = 1;
  s.seed = seed;
  s.simulation.compute_profile = write_profile();
  s.simulation.compute_variance = variance;
  return s;
}

Op profiled_forward() {
  ComputeOp c;
  c.kind = ComputeKind::forward;
  c.layer_begin = 0, c.layer_end = 1, c.sequences = 1, c.flops = 1e12;
  return {c, false, "fwd"};
}

// Each rank: the profiled forward op, then (with two or more ranks) a 0-byte all-reduce.
Program program(int ranks) {
  Program p = empty_program(ranks);
  for (auto& ops : p.ranks) {
    ops.push_back(profiled_forward());
    if (ranks > 1) ops.push_back(collective(CollectiveKind::allreduce, 0));
  }
  return p;
}

// Per-iteration times from the child's summary: differences of iteration_end_s.
std::vector<double> iteration_times(const ChildRun& run) {
  const auto ends = run.summary.at("iteration_end_s").get<std::vector<double>>();
  std::vector<double> times;
  double previous = 0;
  for (double end : ends) times.push_back(end - previous), previous = end;
  return times;
}

ChildRun run(const Scenario& s, const Program& p) {
  const ComputeModel model(s);
  engine::SimulationOptions o;
  o.iterations = kIterations;
  return simulate_in_child(s, p, o,
                           [&model](const ComputeOp& op, int device, const ComputeSite& site) {
                             return model.seconds(op, device, site);
                           });
}

// quantile(samples, u) for the draw of (rank, iteration, op 0).
double expected_draw(std::uint64_t seed, int rank, int iteration) {
  return sorted_quantile(kSamples, ComputeSampler(seed).unit({rank, iteration, 0}));
}

}  // namespace

TEST_CASE("sampled compute: each iteration of one rank is the quantile of its draw",
          "[sim][closed-form][compute-variance]") {
  const auto r = run(scenario(1, ComputeVariance::sampled, 5), program(1));
  INFO(r.error);
  REQUIRE(r.ok);
  const auto times = iteration_times(r);
  REQUIRE(times.size() == kIterations);
  for (int i = 0; i < kIterations; ++i) {
    INFO("iteration " << i);
    CHECK(times[static_cast<std::size_t>(i)] >= 0.1 - 1e-12);
    CHECK(times[static_cast<std::size_t>(i)] <= 0.3 + 1e-12);
    CHECK(times[static_cast<std::size_t>(i)] == Approx(expected_draw(5, 0, i)).margin(1e-12));
  }
  // The summary's quantiles are those of the same times.
  auto sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const auto& q = r.summary.at("iteration_quantiles_s");
  CHECK(q.at("p10").get<double>() == Approx(sorted_quantile(sorted, 0.1)).margin(1e-12));
  CHECK(q.at("p50").get<double>() == Approx(sorted_quantile(sorted, 0.5)).margin(1e-12));
  CHECK(q.at("p90").get<double>() == Approx(sorted_quantile(sorted, 0.9)).margin(1e-12));
  CHECK(q.at("p10").get<double>() < q.at("p90").get<double>());
}

TEST_CASE("sampled compute: the same seed gives the same times, another seed others",
          "[sim][compute-variance]") {
  const auto a = run(scenario(1, ComputeVariance::sampled, 5), program(1));
  const auto again = run(scenario(1, ComputeVariance::sampled, 5), program(1));
  const auto other = run(scenario(1, ComputeVariance::sampled, 6), program(1));
  REQUIRE(a.ok);
  REQUIRE(again.ok);
  REQUIRE(other.ok);
  const auto ends = a.summary.at("iteration_end_s").get<std::vector<double>>();
  CHECK(ends == again.summary.at("iteration_end_s").get<std::vector<double>>());
  CHECK(ends != other.summary.at("iteration_end_s").get<std::vector<double>>());
}

TEST_CASE("sampled compute: simulation.variance_seed replaces the scenario's seed for the draws only",
          "[sim][closed-form][compute-variance]") {
  // compare --seeds varies this key: the draws follow it, exactly as they would the scenario's seed.
  Scenario s = scenario(1, ComputeVariance::sampled, 5);
  s.simulation.variance_seed = 6;
  const auto r = run(s, program(1));
  REQUIRE(r.ok);
  const auto times = iteration_times(r);
  REQUIRE(times.size() == kIterations);
  for (int i = 0; i < kIterations; ++i)
    CHECK(times[static_cast<std::size_t>(i)] == Approx(expected_draw(6, 0, i)).margin(1e-12));
  // 0 (the default) leaves the scenario's seed in charge.
  s.simulation.variance_seed = 0;
  const auto base = iteration_times(run(s, program(1)));
  for (int i = 0; i < kIterations; ++i)
    CHECK(base[static_cast<std::size_t>(i)] == Approx(expected_draw(5, 0, i)).margin(1e-12));
}

TEST_CASE("sampled compute: two ranks meeting in a 0-byte all-reduce take the larger draw",
          "[sim][closed-form][compute-variance]") {
  const auto r = run(scenario(2, ComputeVariance::sampled, 9), program(2));
  INFO(r.error);
  REQUIRE(r.ok);
  const auto times = iteration_times(r);
  REQUIRE(times.size() == kIterations);
  int rank1_slower = 0;
  for (int i = 0; i < kIterations; ++i) {
    INFO("iteration " << i);
    const double d0 = expected_draw(9, 0, i), d1 = expected_draw(9, 1, i);
    CHECK(times[static_cast<std::size_t>(i)] == Approx(std::max(d0, d1)).margin(1e-12));
    rank1_slower += d1 > d0 ? 1 : 0;
  }
  // Each rank's own draw: sometimes one, sometimes the other is the slower.
  CHECK(rank1_slower > 0);
  CHECK(rank1_slower < kIterations);
}

TEST_CASE("median compute: every iteration takes the profile's median",
          "[sim][closed-form][compute-variance]") {
  const auto r = run(scenario(2, ComputeVariance::median, 9), program(2));
  INFO(r.error);
  REQUIRE(r.ok);
  for (double t : iteration_times(r)) CHECK(t == Approx(0.2).margin(1e-12));
  const auto& q = r.summary.at("iteration_quantiles_s");
  CHECK(q.at("p10").get<double>() == Approx(0.2).margin(1e-12));
  CHECK(q.at("p90").get<double>() == Approx(0.2).margin(1e-12));
}

namespace {

// Measured steps 1-4 of the forward op (op 0) on ranks 0 and 1: a rank is fast in the steps
// where the other is slow (two ranks sharing a core), so the slower of the two is 0.4, 0.3, 0.3,
// 0.4 s per step while independent draws would pair 0.4 with 0.4 at times.
const std::vector<double> kRank0{0.1, 0.3, 0.2, 0.4}, kRank1{0.4, 0.1, 0.3, 0.2};

Scenario steps_scenario(std::uint64_t seed) {
  Scenario s = scenario(2, ComputeVariance::steps, seed);
  std::string samples, sites;
  for (int r = 0; r < 2; ++r)
    for (int step = 1; step <= 4; ++step) {
      const double t = (r == 0 ? kRank0 : kRank1)[static_cast<std::size_t>(step - 1)];
      samples += (samples.empty() ? "" : ", ") + std::to_string(t);
      sites += (sites.empty() ? "[" : ", [") + std::to_string(r) + ", " + std::to_string(step) + ", 0]";
    }
  const auto path = std::filesystem::path(s.simulation.compute_profile).parent_path() / "steps.json";
  std::ofstream(path) << R"({"format": "geotrain-compute-profile", "version": 1,
    "ops": [{"kind": "forward", "layer_begin": 0, "layer_end": 1, "sequences": 1, "flops": 1e12,
             "median_s": 0.25, "samples_s": [)" << samples << R"(], "sample_sites": [)" << sites << "]}]}";
  s.simulation.compute_profile = path.string();
  return s;
}

}  // namespace

TEST_CASE("steps compute: both ranks of an iteration take the same measured step, each step once "
          "per cycle", "[sim][closed-form][compute-variance]") {
  const auto r = run(steps_scenario(4), program(2));
  INFO(r.error);
  REQUIRE(r.ok);
  const auto times = iteration_times(r);
  REQUIRE(times.size() == kIterations);
  const ComputeSampler sampler(4);
  for (int i = 0; i < kIterations; ++i) {
    INFO("iteration " << i);
    const auto k = sampler.measured_step(i, 1, 4);  // measured steps 1..4 -> index 0..3
    CHECK(times[static_cast<std::size_t>(i)] == Approx(std::max(kRank0[k], kRank1[k])).margin(1e-12));
  }
  // Iterations 1-4 are one cycle: the measured steps' slower ranks, in some order.
  std::vector<double> cycle(times.begin() + 1, times.begin() + 5);
  std::sort(cycle.begin(), cycle.end());
  CHECK(cycle[0] == Approx(0.3).margin(1e-12));
  CHECK(cycle[1] == Approx(0.3).margin(1e-12));
  CHECK(cycle[2] == Approx(0.4).margin(1e-12));
  CHECK(cycle[3] == Approx(0.4).margin(1e-12));
  const auto again = run(steps_scenario(4), program(2));
  REQUIRE(again.ok);
  CHECK(r.summary.at("iteration_end_s") == again.summary.at("iteration_end_s"));
}

}  // namespace compute_variance_sim_test
