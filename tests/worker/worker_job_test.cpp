// Worker job files: stragglers and DiLoCo's outer step survive the JSON round trip, older files
// without them get the defaults, a bad wire dtype is named.
#include <catch2/catch.hpp>

#include "emu/worker/worker_job.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace worker_job_test {

using namespace geotrain;
using Catch::Matchers::Contains;

TEST_CASE("worker jobs carry stragglers and DiLoCo's outer step through JSON", "[worker][job]") {
  const auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/diloco_timeout_3.yaml");
  const auto job = make_worker_job(s, build_program(s));
  CHECK(job.stragglers.probability == 0.2);
  CHECK(job.stragglers.sleep_s == Approx(0.15));
  CHECK(job.stragglers.seed == 7);
  CHECK(job.outer_lr == 0.7);
  CHECK(job.outer_momentum == 0.9);
  CHECK(job.wire_dtype == DType::fp16);
  const auto back = worker_job_from_json(worker_job_to_json(job), "job.json");
  CHECK(back.stragglers.probability == job.stragglers.probability);
  CHECK(back.stragglers.sleep_s == job.stragglers.sleep_s);
  CHECK(back.stragglers.seed == job.stragglers.seed);
  CHECK(back.outer_lr == job.outer_lr);
  CHECK(back.outer_momentum == job.outer_momentum);
  CHECK(back.wire_dtype == DType::fp16);
}

TEST_CASE("worker jobs without the optional sections get the defaults, bad dtypes are named",
          "[worker][job]") {
  auto j = worker_job_to_json(test::ddp_job(test::tiny_model(), {2, 2}));
  j.erase("stragglers");
  j.erase("outer");
  const auto job = worker_job_from_json(j, "old.json");
  CHECK(job.stragglers.probability == 0);
  CHECK(job.wire_dtype == DType::fp32);
  j["outer"] = {{"lr", 0.7}, {"momentum", 0.9}, {"wire_dtype", "fp8"}};
  CHECK_THROWS_WITH(worker_job_from_json(j, "bad.json"),
                    Contains("bad.json: $.outer.wire_dtype: 'fp8' unknown dtype"));
}

TEST_CASE("worker jobs carry each rank's device slowdown, a speed-up cannot be emulated",
          "[worker][job]") {
  auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml");
  s.devices.at(1).slowdown = 2.5;
  const auto job = make_worker_job(s, build_program(s));
  CHECK(job.slowdown_of_rank == std::vector<double>{1.0, 2.5});
  CHECK(worker_job_from_json(worker_job_to_json(job), "job.json").slowdown_of_rank == job.slowdown_of_rank);
  s.devices.at(0).slowdown = 0.5;
  CHECK_THROWS_WITH(make_worker_job(s, build_program(s)),
                    Contains("device 0 has slowdown 0.5 (expected >= 1 to emulate"));
}

TEST_CASE("a strategy the emulator cannot run yet is refused before any file, with its reason",
          "[worker][job]") {
  // No registered strategy needs it today; a Program carries the reason its registrar gives.
  const auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml");
  Program p = build_program(s);
  CHECK(p.not_emulated.empty());
  p.not_emulated = "its workers would move the wrong tensor";
  CHECK_THROWS_WITH(make_worker_job(s, p),
                    Contains("strategy.name = 'ddp-allreduce': simulate only (its workers would "
                             "move the wrong tensor"));
}

TEST_CASE("local-sgd is emulated: its all-reduce carries the weights", "[worker][job]") {
  const auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml",
                               {"strategy={name: local-sgd, sync_every: 4}"});
  const Program p = build_program(s);
  CHECK(p.not_emulated.empty());
  const auto job = make_worker_job(s, p);
  int weights = 0;
  for (const auto& op : job.program.ranks[0])
    if (const auto* c = op.as<CollectiveOp>()) weights += c->payload == Payload::weights;
  CHECK(weights == 1);
}

TEST_CASE("the worker takes DiLoCo's outer step from the Program, not from the strategy's name",
          "[worker][job]") {
  const auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/diloco_2.yaml",
                               {"strategy.outer_lr=0.3", "strategy.outer_momentum=0.5",
                                "strategy.wire_dtype=fp16"});
  Program p = build_program(s);
  REQUIRE(p.outer_step);
  CHECK(p.outer_step->wire_dtype == DType::fp16);
  p.strategy = "renamed";  // executors must not care
  const WorkerJob job = make_worker_job(s, p);
  CHECK(job.outer_lr == 0.3);
  CHECK(job.outer_momentum == 0.5);
  CHECK(job.wire_dtype == DType::fp16);
  const auto ddp = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml");
  const Program q = build_program(ddp);
  CHECK_FALSE(q.outer_step);
  CHECK(make_worker_job(ddp, q).wire_dtype == ddp.model.gradient_dtype);
}

}  // namespace worker_job_test
