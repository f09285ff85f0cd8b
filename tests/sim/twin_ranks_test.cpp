// Twin ranks (sim/engine/twin_ranks.hpp) are a shortcut, not a model: a run with twins must give
// every op of every rank the times the full run gives it, and the same summary (splits, bytes
// per link, collectives). Each case runs a bundled scenario twice, simulation.twin_ranks true and
// false, and compares everything; and where the Program's shape rules twins out, that every rank
// was simulated.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "sim/engine/simulation.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim_child.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace twin_ranks_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

ChildRun run(const std::string& scenario, std::vector<std::string> sets, bool twins) {
  sets.push_back(std::string("simulation.twin_ranks=") + (twins ? "true" : "false"));
  const Scenario s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/" + scenario, sets);
  const Program p = build_program(s);
  const ComputeModel model(s);
  return simulate_in_child(s, p, {}, [&model](const ComputeOp& op, int device, const ComputeSite& site) {
    return model.seconds(op, device, site);
  });
}

// 1e-12 relative, and 10 ns: SimGrid ends a sleep within its timing precision (1e-9 s) of the
// time asked for, where a twin's times after its collective are computed, not slept: they differ
// from the full run's by that much (measured: 8e-10 s).
bool close(double a, double b) {
  return a == b || std::abs(a - b) <= 1e-12 * std::max(std::abs(a), std::abs(b)) + 1e-8;
}

// Every number equal to 1e-12 relative, every other value equal; `path` says where they differ.
void check_same_json(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
  INFO(path);
  REQUIRE(a.type() == b.type());
  if (a.is_object()) {
    REQUIRE(a.size() == b.size());
    for (auto it = a.begin(); it != a.end(); ++it) {
      REQUIRE(b.contains(it.key()));
      check_same_json(it.value(), b.at(it.key()), path + "." + it.key());
    }
  } else if (a.is_array()) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) check_same_json(a[i], b[i], path + "[" + std::to_string(i) + "]");
  } else if (a.is_number_float()) {
    CHECK(close(a.get<double>(), b.get<double>()));
  } else {
    CHECK(a == b);
  }
}

// Runs the scenario with and without twins; returns how many ranks the run with twins simulated.
int check_twins_exact(const std::string& scenario, const std::vector<std::string>& sets) {
  INFO(scenario);
  const ChildRun with = run(scenario, sets, true);
  const ChildRun without = run(scenario, sets, false);
  REQUIRE(with.ok);
  REQUIRE(without.ok);
  const int n = without.summary.at("world_size").get<int>();
  CHECK(without.simulated_ranks == n);
  for (int r = 0; r < n; ++r) {
    INFO("rank " << r);
    const auto ops = without.end_s.at(static_cast<std::size_t>(r)).size();
    REQUIRE(with.end_s.at(static_cast<std::size_t>(r)).size() == ops);
    for (std::size_t i = 0; i < ops; ++i) {
      INFO("op " << i);
      const int op = static_cast<int>(i);
      CHECK(close(with.start(r, op), without.start(r, op)));
      INFO(std::to_string(with.end(r, op)) << " vs " << std::to_string(without.end(r, op)) << " diff " << with.end(r, op) - without.end(r, op));
      CHECK(close(with.end(r, op), without.end(r, op)));
    }
  }
  check_same_json(with.summary, without.summary, "summary");
  return with.simulated_ranks;
}

}  // namespace

TEST_CASE("twin ranks: a gpipe swarm's replicas run once per class, every record exact",
          "[sim][twins]") {
  // 16 stages x 64 replicas in ten cities; the stage groups (64) run the aggregated ring.
  const int simulated = check_twins_exact("bench/world_1024_gpipe.yaml",
                                          {"simulation.aggregate_collectives_above=16"});
  CHECK(simulated < 1024);
  CHECK(simulated % 16 == 0);  // whole replicas
}

TEST_CASE("twin ranks: DDP, local SGD and DiLoCo ranks, one per region, every record exact",
          "[sim][twins]") {
  for (const char* scenario : {"bench/world_1024_ddp.yaml", "bench/world_1024_local-sgd.yaml",
                               "bench/world_1024_diloco.yaml"}) {
    const int simulated = check_twins_exact(scenario, {});
    CHECK(simulated > 0);
    CHECK(simulated <= 20);  // ten cities: a handful of classes, not 1,024 ranks
  }
}

TEST_CASE("twin ranks: seeded stragglers make ranks differ, the twins left are still exact",
          "[sim][twins]") {
  const int simulated = check_twins_exact(
      "bench/world_1024_gpipe.yaml",
      {"simulation.aggregate_collectives_above=16", "stragglers.probability=0.02",
       "stragglers.sleep=3s", "stragglers.seed=5"});
  CHECK(simulated > 16 * 10);  // more classes than without stragglers
  CHECK(simulated < 1024);
}

TEST_CASE("twin ranks: Programs of another shape simulate every rank", "[sim][twins]") {
  // Gather, the root's average, then scatter: more than one collective per rank.
  CHECK(check_twins_exact("bench/world_1024_ps-gather-scatter.yaml", {}) == 1024);
  // Two iterations: the next pipeline would start from each replica's own collective end.
  CHECK(check_twins_exact("bench/world_1024_ddp.yaml", {"simulation.iterations=2"}) == 1024);
  // Groups at message level (64 members, not above the default threshold of 64).
  CHECK(check_twins_exact("bench/world_1024_gpipe.yaml", {}) == 1024);
}

}  // namespace twin_ranks_test
