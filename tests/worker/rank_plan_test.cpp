#include <catch2/catch.hpp>

#include "emu/worker/rank_plan.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace rank_plan_test {

using namespace geotrain;

TEST_CASE("gpipe ranks know their stage, replica, layers and what transfers carry",
          "[worker][rank_plan]") {
  const auto m = test::tiny_model();
  const auto job = test::gpipe_job(m, 2, 3, 2, 2);  // rank = replica * 2 + stage
  const auto p3 = make_rank_plan(job.program, 3, m.layers);
  CHECK(p3.stage == 1);
  CHECK(p3.stages == 2);
  CHECK(p3.replica == 1);
  CHECK(p3.replicas == 3);
  CHECK(p3.layer_begin == 2);
  CHECK(p3.layer_end == 4);
  CHECK(p3.replica_sequences == 4);
  CHECK(p3.global_sequences == 12);
  REQUIRE(p3.micro_batches.size() == 2);
  CHECK(p3.micro_batches[1].offset == 2);
  // Stage 1's first op receives micro-batch 0's activation; later it sends gradients back.
  CHECK(p3.carries[0] == Payload::activation);
  CHECK(p3.carries_micro_batch[0] == 0);
  const auto& ops = job.program.ranks[3];
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].as<SendOp>()) {
      CHECK(p3.carries[i] == Payload::activation_grad);
      CHECK(p3.carries_micro_batch[i] == std::get<SendOp>(ops[i].body).tag - 1000);
    }
}

TEST_CASE("data-parallel ranks are replicas of their own", "[worker][rank_plan]") {
  const auto m = test::tiny_model();
  const auto job = test::ddp_job(m, {4, 2});
  const auto p = make_rank_plan(job.program, 2, m.layers);
  CHECK(p.replica == 2);
  CHECK(p.replicas == 4);
  CHECK(p.global_sequences == 8);
  CHECK(p.first_stage());
  CHECK(p.last_stage());
}

TEST_CASE("programs that break the conventions are rejected", "[worker][rank_plan]") {
  const auto m = test::tiny_model();
  auto job = test::ddp_job(m, {2, 2});
  job.program.sequences_per_iteration = 5;
  CHECK_THROWS_WITH(make_rank_plan(job.program, 0, m.layers),
                    "Program: 2 replicas x 2 sequences per replica x 1 passes = 4 but "
                    "sequences_per_iteration is 5");
  CHECK_THROWS_AS(make_rank_plan(job.program, 0, m.layers + 1), InputError);
}

TEST_CASE("parameter-server pushes and pulls are not activations, DiLoCo passes H times",
          "[worker][rank_plan]") {
  const std::string dir = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/";
  const auto het = load_scenario(dir + "hetpipe_2x2.yaml");
  const auto hp = build_program(het);
  for (int rank = 0; rank < hp.world_size; ++rank) {
    const auto plan = make_rank_plan(hp, rank, het.model.layers);
    INFO("rank " << rank);
    CHECK(plan.replicas == 2);  // the pushes/pulls do not join the two pipelines
    CHECK(plan.replica == rank / 2);
    const bool server = plan.replica == 0;
    int gradients_out = 0, gradients_in = 0, weights_out = 0, weights_in = 0;
    const auto& ops = hp.ranks[static_cast<std::size_t>(rank)];
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const bool send = ops[i].as<SendOp>() != nullptr;
      if (!send && !ops[i].as<RecvOp>()) continue;  // carries names a transfer's payload only
      if (plan.carries[i] == Payload::gradients) ++(send ? gradients_out : gradients_in);
      if (plan.carries[i] == Payload::weights) ++(send ? weights_out : weights_in);
    }
    CHECK(gradients_out == (server ? 0 : 1));
    CHECK(weights_in == (server ? 0 : 1));
    CHECK(gradients_in == (server ? 1 : 0));
    CHECK(weights_out == (server ? 1 : 0));
  }
  const auto diloco = load_scenario(dir + "diloco_2.yaml");
  const auto plan = make_rank_plan(build_program(diloco), 1, diloco.model.layers);
  CHECK(plan.passes == 4);
  CHECK(plan.global_sequences == 16);
}

TEST_CASE("a DiLoCo rejoin's Send/Recv carry the training state, not parameter-server traffic",
          "[worker][rank_plan][churn]") {
  const std::string dir = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/";
  const auto s = load_scenario(dir + "diloco_churn_3.yaml");
  const auto p = build_program(s);
  for (int rank = 0; rank < p.world_size; ++rank) {
    INFO("rank " << rank);
    const auto plan = make_rank_plan(p, rank, s.model.layers);
    CHECK(plan.replicas == 3);  // the state transfer joins no replicas
    CHECK(plan.replica == rank);
    CHECK(plan.passes == 2);
    int state = 0;
    for (std::size_t i = 0; i < plan.carries.size(); ++i)
      state += (p.ranks[rank][i].as<SendOp>() || p.ranks[rank][i].as<RecvOp>()) && plan.carries[i] == Payload::state;
    CHECK(state == (rank == 1 ? 0 : 1));  // worker 0 sends, worker 2 loads
  }
}

TEST_CASE("DiLoCo's pseudo-gradient phase begins at the pseudo-gradient op, not at a codec op",
          "[worker][rank_plan][compression]") {
  // The compressed average's codec ops are compute ops of kind other too (docs/compression.md).
  const Scenario s = parse_scenario(
      "devices: {count: 2, profile: V100, regions: [lab]}\n"
      "network: {regions: {intra: {delay: 5ms, bandwidth: 2Gbps}}}\n"
      "model: {preset: gpt-tiny}\n"
      "training: {global_batch: 4}\n"
      "strategy: {name: diloco, inner_steps: 2, compression: {kind: int8}}\n",
      "diloco.yaml", "");
  const Program p = build_program(s);
  const auto& ops = p.ranks[0];
  const auto phase = pseudo_gradient_phase(ops);
  std::vector<std::string> starts;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (phase[i] && (i == 0 || !phase[i - 1])) starts.push_back(ops[i].label);
  CHECK(starts == std::vector<std::string>{"pseudo-gradient"});
}

}  // namespace rank_plan_test
