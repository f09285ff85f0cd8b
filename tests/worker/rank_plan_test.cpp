#include <catch2/catch.hpp>

#include "emu/worker/rank_plan.hpp"
#include "sim/common/error.hpp"
#include "test_programs.hpp"

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
  CHECK(p3.carries[0] == Carries::activation);
  CHECK(p3.carries_micro_batch[0] == 0);
  const auto& ops = job.program.ranks[3];
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].as<SendOp>()) {
      CHECK(p3.carries[i] == Carries::activation_grad);
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
                    "Program: 2 replicas x 2 sequences per replica = 4 but "
                    "sequences_per_iteration is 5");
  CHECK_THROWS_AS(make_rank_plan(job.program, 0, m.layers + 1), InputError);
}
