// What the worker checks before an NCCL or CUDA run, without a GPU: whether a Program's
// point-to-point transfers can run on NCCL (emu/worker/p2p_order.hpp) and the stage memory
// estimate against its closed form (emu/worker/stage_memory.hpp).
#include <catch2/catch.hpp>

#include "emu/worker/p2p_order.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/stage_memory.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace nccl_readiness_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

Op send(int peer, double bytes, const std::string& label) {
  Op op;
  op.label = label;
  op.body = SendOp{peer, bytes, 0};
  return op;
}

Op recv(int peer, double bytes, const std::string& label) {
  Op op;
  op.label = label;
  op.body = RecvOp{peer, bytes, 0};
  return op;
}

Program two_ranks(std::vector<Op> rank0, std::vector<Op> rank1) {
  Program p;
  p.world_size = 2;
  p.ranks = {std::move(rank0), std::move(rank1)};
  return p;
}

WorkerJob bundled(const std::string& name) {
  const auto s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/" + name + ".yaml");
  return make_worker_job(s, build_program(s));
}

}  // namespace

TEST_CASE("nccl p2p order: each direction's sends meet its receives in order, or the pair is named",
          "[worker][nccl]") {
  // A pipeline pair: activations one way, then gradients back.
  CHECK(nccl_p2p_order_problem(two_ranks({send(1, 8, "act0"), send(1, 8, "act1"), recv(1, 8, "grad1")},
                                         {recv(0, 8, "act0"), recv(0, 8, "act1"), send(0, 8, "grad1")})) == "");
  // Both post a receive before their send (pre-posted gradients): fine, because each direction
  // of a pair has its own world group on NCCL.
  CHECK(nccl_p2p_order_problem(two_ranks({recv(1, 8, "grad0"), send(1, 8, "act1")},
                                         {recv(0, 8, "act1"), send(0, 8, "grad0")})) == "");
  // Gloo matches by tag, NCCL by position: sizes must agree position by position.
  CHECK(nccl_p2p_order_problem(two_ranks({send(1, 8, "a"), send(1, 16, "b")}, {recv(0, 16, "b"), recv(0, 8, "a")})) ==
        "rank 0 to rank 1, transfer 0 (iteration 0): rank 0 op 0 ('a', send of 8 bytes) meets rank 1 op 0 ('b', "
        "receive of 16 bytes)");
  CHECK(nccl_p2p_order_problem(two_ranks({send(1, 8, "lonely")}, {})) ==
        "rank 0 to rank 1, transfer 0 (iteration 0): rank 0 op 0 ('lonely', send of 8 bytes) has no receive on rank 1");
  CHECK(nccl_p2p_order_problem(two_ranks({}, {recv(0, 8, "waiting")})) ==
        "rank 0 to rank 1, transfer 0 (iteration 0): rank 1 op 0 ('waiting', receive of 8 bytes) has no send on rank 0");
}

TEST_CASE("nccl p2p order: the bundled pipelines and data-parallel Programs can run on NCCL",
          "[worker][nccl]") {
  for (const char* name : {"ddp_ring_2", "ddp_bucketed_4", "ps_gather_4", "gpipe_2x2", "diloco_2", "hetpipe_2x2",
                           "sdpipe_2x2", "adpsgd_4"}) {
    INFO(name);
    CHECK(nccl_p2p_order_problem(bundled(name).program) == "");
  }
}

TEST_CASE("stage memory: the estimate is its closed form, and a stage too large is refused with both figures",
          "[worker][cuda]") {
  const ModelSpec m = tiny_model();
  const auto job = ddp_job(m, DdpOptions{});  // 2 ranks, one stage each, Adam
  const auto plan = make_rank_plan(job.program, 0, m.layers);
  const auto need = estimate_stage_memory(job, plan);
  const double p = stage_parameters(m, 0, m.layers, job.tie_embeddings);
  CHECK(need.weights == p * 4);
  CHECK(need.gradients == p * 4);
  CHECK(need.optimizer == 2 * p * 4);  // Adam's two moments
  CHECK(need.outer == 0);              // no DiLoCo outer step
  const double S = m.seq_len, d = m.d_model, H = m.heads, V = m.vocab;
  const double per_sequence = m.layers * (17 * S * d + 3 * H * S * S) + S * d + 2 * S * V + S * d;
  CHECK(need.activations == Approx(per_sequence * 4 * 4));  // 4 sequences, 4-byte values
  CHECK(need.total() == Approx(need.weights + need.gradients + need.optimizer + need.activations +
                               kProcessOverheadBytes));

  CHECK(stage_fit_problem(need, 2 * need.total(), 2, "cuda:0").empty());
  const auto refused = stage_fit_problem(need, 2 * need.total(), 4, "cuda:0 (GPU)");
  CHECK(refused.find("the stage needs about ") == 0);
  CHECK(refused.find("on cuda:0 (GPU)") != std::string::npos);
  CHECK(refused.find("GiB are free for each of the 4 ranks sharing it") != std::string::npos);
}

TEST_CASE("stage memory: DiLoCo keeps the round's start and the outer momentum", "[worker][cuda]") {
  const auto job = bundled("diloco_2");
  const auto plan = make_rank_plan(job.program, 0, job.model.layers);
  const auto need = estimate_stage_memory(job, plan);
  CHECK(need.outer == need.weights * 2);
}

}  // namespace nccl_readiness_test
