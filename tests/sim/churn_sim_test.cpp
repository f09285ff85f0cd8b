// Ops with iteration ranges in the engine (DiLoCo churn), against closed forms under the flow
// model: a round with a worker away is a ring all-reduce of the k present workers,
// 2(k-1)/k S/B + 2(k-1) L; the rejoin round adds the state transfer L + state/B. Inactive ops
// leave no record (ops.csv) and bytes count only the rounds that ran.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace churn_sim_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kL = 0.010;   // 10 ms
constexpr double kB = 1.25e8;  // 1 Gbit/s
constexpr double kS = 100e6;   // 100 MB

double ring_allreduce_s(int n, double bytes) { return ring_allreduce_closed_form_s(n, bytes, kL, kB); }

}  // namespace

TEST_CASE("iteration ranges: a round with a member away is predicted with k-1 members",
          "[sim][closed-form][churn]") {
  // 4 ranks; rank 3 away in iteration 1: ranks 0-2 all-reduce on group 1 then.
  Program p = empty_program(4);
  p.groups.push_back({1, "world without 3", {0, 1, 2}});
  for (int r = 0; r < 4; ++r) {
    Op all = collective(CollectiveKind::allreduce, kS);
    all.iterations = {{0, 1}, {2, -1}};
    p.ranks[static_cast<std::size_t>(r)].push_back(all);
    if (r == 3) continue;
    Op three = collective(CollectiveKind::allreduce, kS, CollectiveAlgorithm::ring, 0, false, 1);
    three.iterations = {{1, 2}};
    p.ranks[static_cast<std::size_t>(r)].push_back(three);
  }
  engine::SimulationOptions o;
  o.iterations = 3;
  const auto dir = std::filesystem::temp_directory_path() / ("geotrain-churn-sim-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto r = simulate_in_child(uniform_scenario(4, kL, kB), p, o, tflop_seconds(), dir.string());
  INFO(r.error);
  REQUIRE(r.ok);
  const double t4 = ring_allreduce_s(4, kS), t3 = ring_allreduce_s(3, kS);
  const auto ends = r.summary.at("iteration_end_s").get<std::vector<double>>();
  REQUIRE(ends.size() == 3);
  CHECK(ends[0] == Approx(t4).epsilon(1e-3));
  CHECK(ends[1] == Approx(t4 + t3).epsilon(1e-3));
  CHECK(ends[2] == Approx(2 * t4 + t3).epsilon(1e-3));
  // Bytes: 2(k-1)/k S per member and round.
  CHECK(r.summary.at("bytes").at("collectives").get<double>() ==
        Approx(2 * (2.0 * 3 / 4 * kS * 4) + 2.0 * 2 / 3 * kS * 3).epsilon(1e-6));
  // ops.csv: one row per op that ran (every rank one per iteration, rank 3 none in iteration 1).
  std::ifstream csv(dir / "ops.csv");
  REQUIRE(csv);
  std::string line;
  std::getline(csv, line);
  int rows = 0, rank3_it1 = 0;
  while (std::getline(csv, line)) {
    ++rows;
    if (line.rfind("3,3,1,", 0) == 0) ++rank3_it1;
  }
  CHECK(rows == 4 * 3 - 1);
  CHECK(rank3_it1 == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("diloco churn simulated: k-1 members while away, the state transfer on rejoin",
          "[sim][closed-form][churn]") {
  const std::string text =
      "devices: {count: 4, profile: V100, regions: [lab]}\n"
      "network: {regions: {intra: {delay: 10ms, bandwidth: 1Gbps}}}\n"
      "model: {preset: gpt-mini}\n"
      "training: {global_batch: 8, micro_batches: 1}\n"
      "strategy: {name: diloco, inner_steps: 1}\n"
      "churn:\n  - {worker: 3, leave: 1, join: 2}\n";
  const Scenario s = parse_scenario(text, "churn.yaml", "");
  const Program p = build_program(s);
  // Compute: every rank runs the same ops in a round it is present in.
  double compute = 0;
  for (const auto& op : p.ranks[1])
    if (const auto* c = op.as<ComputeOp>()) compute += c->flops * 1e-12;
  const double bytes = diloco_wire_bytes(s), state = diloco_state_bytes(s);
  engine::SimulationOptions o;
  o.iterations = 3;
  const auto r = simulate_in_child(uniform_scenario(4, kL, kB), p, o, tflop_seconds());
  REQUIRE(r.ok);
  const auto ends = r.summary.at("iteration_end_s").get<std::vector<double>>();
  REQUIRE(ends.size() == 3);
  const double t4 = ring_allreduce_s(4, bytes), t3 = ring_allreduce_s(3, bytes);
  const double transfer = kL + state / kB;
  CHECK(ends[0] == Approx(compute + t4).epsilon(1e-3));
  CHECK(ends[1] - ends[0] == Approx(compute + t3).epsilon(1e-3));
  CHECK(ends[2] - ends[1] == Approx(transfer + compute + t4).epsilon(1e-3));
  CHECK(r.summary.at("bytes").at("p2p").get<double>() == Approx(state));
  // The figures used in the report.
  WARN("S = " << bytes << " B, state = " << state << " B, compute = " << compute << " s, T4 = "
              << t4 << " s, T3 = " << t3 << " s, rounds: " << ends[0] << ", " << ends[1] - ends[0]
              << ", " << ends[2] - ends[1]);
}

}  // namespace churn_sim_test
