// Predictions pinned: the iteration time of the paper and benchmark scenarios (flow model, one
// iteration) as the simulator computed them on 2026-11-25, before the scale work of issue 16
// (O(N) actor memory, the one-pass aggregated ring). Scaling changes must not move a prediction:
// 1e-9 relative. Sizes pinned: 64 devices (DT-FM cases 1-5, gpipe 8 x 8), 1,024 and 4,096
// devices (ten cities, gpipe 16 x 64 / 16 x 256 and a ddp ring all-reduce over all devices).
#include <catch2/catch.hpp>

#include <string>

#include "sim/engine/simulation.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim_child.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace prediction_regression_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

struct Pinned {
  const char* scenario;  // under scenarios/
  double iteration_time_s;
};

// Recorded with the unchanged code (geotrain simulate <file> --iterations 1, summary.json).
constexpr Pinned kPinned[] = {
    {"paper/dtfm_case1.yaml", 9.490129387519998},
    {"paper/dtfm_case2.yaml", 21.592231147519986},
    {"paper/dtfm_case3.yaml", 16.233049387519987},
    {"paper/dtfm_case4.yaml", 20.41601193497097},
    {"paper/dtfm_case5.yaml", 40.706630442022906},
    {"bench/world_1024_ddp.yaml", 791.3333481356033},
    {"bench/world_1024_gpipe.yaml", 72.05557986227033},
    {"bench/world_4096_ddp.yaml", 2401.248272970324},
    {"bench/world_4096_gpipe.yaml", 172.9128129911053},
};

}  // namespace

TEST_CASE("predictions: iteration times of the paper and benchmark scenarios are unchanged",
          "[sim][regression]") {
  for (const auto& pin : kPinned) {
    const std::string file = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/" + pin.scenario;
    INFO(file);
    const Scenario s = load_scenario(file, {"simulation.iterations=1"});
    const Program p = build_program(s);
    const ComputeModel model(s);
    const auto run = simulate_in_child(s, p, {}, [&model](const ComputeOp& op, int device, const ComputeSite& site) {
      return model.seconds(op, device, site);
    });
    REQUIRE(run.ok);
    CHECK(run.summary.at("iteration_time_s").get<double>() ==
          Approx(pin.iteration_time_s).epsilon(1e-9));
  }
}

}  // namespace prediction_regression_test
