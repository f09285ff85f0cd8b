#include <catch2/catch.hpp>
#include <cmath>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/program/closed_forms.hpp"
#include "sim/program/collective_schedule.hpp"
#include "sim/program/program_validation.hpp"
#include "sim/strategies/strategy_registry.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace strategies_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

const std::vector<std::string> kDataParallel{"ddp-allreduce", "ps-gather-scatter", "ps-sharded",
                                             "ddp-bucketed"};

// Bytes a rank sends in the Program's collectives, from the schedules the executors run
// (fp32 elements).
double collective_bytes_sent(const Program& p, int rank) {
  double sent = 0;
  for (const auto& op : p.ranks[static_cast<std::size_t>(rank)]) {
    const auto* c = op.as<CollectiveOp>();
    if (!c) continue;
    const auto& members = p.group(c->group).ranks;
    const int pos =
        static_cast<int>(std::find(members.begin(), members.end(), rank) - members.begin());
    const int root =
        static_cast<int>(std::find(members.begin(), members.end(), c->root) - members.begin());
    const auto steps = collective_schedule(c->kind, c->algorithm, static_cast<int>(members.size()),
                                           pos, root, static_cast<std::size_t>(c->bytes / 4));
    sent += 4.0 * static_cast<double>(elements_sent(steps));
  }
  return sent;
}

int count_ops(const Program& p, int rank, ComputeKind kind) {
  int n = 0;
  for (const auto& op : p.ranks[static_cast<std::size_t>(rank)])
    if (const auto* c = op.as<ComputeOp>(); c && c->kind == kind) ++n;
  return n;
}

}  // namespace

TEST_CASE("every data-parallel strategy builds a valid program for N = 1, 2, 3, 5, 8",
          "[program][strategies]") {
  for (const auto& name : kDataParallel)
    for (int n : {1, 2, 3, 5, 8}) {
      INFO(name << " N = " << n);
      const Scenario s = test::scenario_with(n, "{name: " + name + "}", "gpt-mini",
                                             "training: {global_batch: 40, micro_batches: 2}\n");
      const Program p = build_program(s);
      CHECK(p.world_size == n);
      CHECK(p.strategy == name);
      CHECK(program_problems(p).empty());
      for (int r = 0; r < n; ++r) {
        CHECK(count_ops(p, r, ComputeKind::forward) == 2);
        CHECK(count_ops(p, r, ComputeKind::optimizer) == 1);
        CHECK(p.ranks[static_cast<std::size_t>(r)].back().label == "optim s0");
      }
      CHECK(p.sequences_per_iteration == 40);
      CHECK(p.tokens_per_iteration == 40 * 128);
      CHECK(p.model_flops_per_iteration ==
            Approx(3 * stage_forward_flops_per_sequence(s.model, 0, 8) * 40));
    }
}

TEST_CASE("ddp-allreduce: each rank sends 2(N-1)/N of the gradient", "[program][strategies]") {
  for (const std::string algorithm : {"ring", "tree"})
    for (int n : {1, 2, 3, 5, 8}) {
      INFO(algorithm << " N = " << n);
      const Program p = build_program(
          test::scenario_with(n, "{name: ddp-allreduce, algorithm: " + algorithm + "}"));
      const ModelSpec m = model_preset("gpt-mini");
      const double gradient = 4 * total_params(m);
      const auto* c = p.ranks[0][p.ranks[0].size() - 2].as<CollectiveOp>();
      REQUIRE(c);
      CHECK(c->bytes == Approx(gradient));
      CHECK(to_string(c->algorithm) == algorithm);
      if (algorithm == "ring")
        for (int r = 0; r < n; ++r)
          CHECK(collective_bytes_sent(p, r) ==
                Approx(ring_allreduce_bytes_per_rank(n, gradient)).margin(4.0 * 2 * n));
    }
  CHECK_NOTHROW(
      build_program(test::scenario_with(8, "{name: ddp-allreduce, algorithm: halving-doubling}")));
  const Scenario five =
      test::scenario_with(5, "{name: ddp-allreduce, algorithm: halving-doubling}");
  CHECK_THROWS_AS(build_program(five), InputError);
  CHECK_THROWS_WITH(build_program(five),
                    Contains("test.yaml: strategy.algorithm = halving-doubling: needs a power-of-2 "
                             "number of data-parallel replicas, the scenario has 5"));
  const Scenario pipeline =
      test::scenario_with(6, "{name: gpipe, stages: 2, replicas: 3, algorithm: halving-doubling}");
  CHECK_THROWS_WITH(build_program(pipeline), Contains("the scenario has 3 (use ring or tree)"));
}

TEST_CASE("ps-gather-scatter goes through the server", "[program][strategies]") {
  const int n = 5;
  const Program p = build_program(test::scenario_with(n, "{name: ps-gather-scatter, server: 2}"));
  const double gradient = 4 * total_params(model_preset("gpt-mini"));
  for (int r = 0; r < n; ++r) {
    const double sent = collective_bytes_sent(p, r);
    // Workers send their gradient once; the server sends the mean to the N-1 others.
    CHECK(sent == Approx(r == 2 ? (n - 1) * gradient : gradient));
    CHECK(count_ops(p, r, ComputeKind::other) == (r == 2 ? 1 : 0));
  }
  CHECK_THROWS_WITH(build_program(test::scenario_with(3, "{name: ps-gather-scatter, server: 3}")),
                    Contains("strategy.server = 3: no such rank (expected 0 to 2)"));
}

TEST_CASE("ps-sharded: reduce-scatter to owners, all-gather back", "[program][strategies]") {
  const int n = 3;
  const Program p = build_program(test::scenario_with(n, "{name: ps-sharded}"));
  const double gradient = 4 * total_params(model_preset("gpt-mini"));
  const auto& ops = p.ranks[1];
  CHECK(ops[ops.size() - 4].label == "reduce-scatter dp s0");
  CHECK(ops[ops.size() - 3].label == "average shard s0");
  CHECK(ops[ops.size() - 2].label == "allgather dp s0");
  CHECK(collective_bytes_sent(p, 1) == Approx(2.0 * (n - 1) / n * gradient).margin(16));
}

TEST_CASE("ddp-bucketed: buckets in reverse layer order overlap the last backward",
          "[program][strategies]") {
  const ModelSpec m = model_preset("gpt-mini");  // 8 layers of 12 d^2 + 13 d = 789,760 parameters
  const double layer_bytes = 4 * params_per_layer(m);
  // Two layers per bucket: the head's norm + layer 7 is under the cap, adding layer 6 closes it.
  const Program p = build_program(test::scenario_with(
      3, fmt::format("{{name: ddp-bucketed, bucket_size: {}}}", 1.5 * layer_bytes), "gpt-mini",
      "training: {global_batch: 6, micro_batches: 2}\n"));
  const auto& ops = p.ranks[0];
  std::vector<const CollectiveOp*> buckets;
  std::vector<int> bucket_index;
  double total = 0;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (const auto* c = ops[i].as<CollectiveOp>()) {
      CHECK(ops[i].nonblocking);
      CHECK(c->tag == static_cast<int>(buckets.size()));
      CHECK(ops[i].label == fmt::format("bucket {}", buckets.size()));
      buckets.push_back(c), bucket_index.push_back(static_cast<int>(i)), total += c->bytes;
    }
  REQUIRE(buckets.size() == 5);  // {head, 7, 6}, {5, 4}, {3, 2}, {1, 0}, {embedding}
  CHECK(total == Approx(4 * total_params(m)));
  CHECK(buckets[0]->bytes == Approx(2 * layer_bytes + 4 * 2 * 256));
  CHECK(buckets[4]->bytes == Approx(4 * embedding_params(m)));
  // Each bucket follows the backward of its layers; the first bucket's part carries the LM head.
  const auto* first = ops[static_cast<std::size_t>(bucket_index[0] - 1)].as<ComputeOp>();
  REQUIRE(first);
  CHECK(first->layer_begin == 6);
  CHECK(first->layer_end == 8);
  CHECK(ops[static_cast<std::size_t>(bucket_index[1] - 1)].label == "bwd s0 mb1 b1");
  // The embedding bucket has no compute of its own: it follows bucket 3 directly.
  CHECK(bucket_index[4] == bucket_index[3] + 1);
  // The backward of the last micro-batch, split into parts, adds up to one whole backward.
  double part_flops = 0;
  for (const auto& op : ops)
    if (const auto* c = op.as<ComputeOp>();
        c && c->kind == ComputeKind::backward && c->micro_batch == 1)
      part_flops += c->flops;
  CHECK(part_flops == Approx(2 * stage_forward_flops_per_sequence(m, 0, 8) * 1));
  CHECK(ops[ops.size() - 2].label == "wait buckets");
  CHECK(ops[ops.size() - 2].as<WaitOp>()->ops == bucket_index);
}

// bucket_size 0 is refused by the loader (its range starts at 1 B: tests/bad_scenarios/
// device_profile_out_of_range); the smallest cap it accepts gives one bucket per unit.
TEST_CASE("one-byte buckets, the smallest cap, still give a valid program",
          "[program][strategies]") {
  const Program p =
      build_program(test::scenario_with(2, "{name: ddp-bucketed, bucket_size: 1}", "gpt-tiny"));
  int buckets = 0;
  for (const auto& op : p.ranks[1]) buckets += op.as<CollectiveOp>() ? 1 : 0;
  CHECK(buckets == 4 + 2);  // one per unit: head norm, 4 layers, embeddings
}

TEST_CASE("the five DT-FM paper scenarios build valid programs", "[program][strategies][paper]") {
  for (int c = 1; c <= 5; ++c) {
    INFO("case " << c);
    const Scenario s =
        load_scenario(test::kSource + "/scenarios/paper/dtfm_case" + std::to_string(c) + ".yaml");
    const Program p = build_program(s);
    CHECK(p.world_size == 64);
    CHECK(p.groups.size() == 8);
    // Stage gradient 0.65 GB, all-reduced among the 8 replicas of each stage.
    const auto& last = p.ranks[0];
    const auto* sync = last[last.size() - 2].as<CollectiveOp>();
    REQUIRE(sync);
    CHECK(sync->bytes == Approx(0.65e9));
    CHECK(p.tokens_per_iteration == Approx(1e6));
  }
}

TEST_CASE("the example and emulation scenarios build valid programs", "[program][strategies]") {
  for (const char* file :
       {"examples/world_regions_1024.yaml", "examples/four_hosts_matrix.yaml",
        "emu/case5_8ranks.yaml", "emu/ring_16ranks.yaml", "emu/pair_5ms_2gbps.yaml"}) {
    INFO(file);
    const Scenario s = load_scenario(test::kSource + "/scenarios/" + file);
    const Program p = build_program(s);
    CHECK(p.world_size == static_cast<int>(s.devices.size()));
    CHECK(p.sequences_per_iteration == s.training.global_batch);
  }
}

}  // namespace strategies_test
