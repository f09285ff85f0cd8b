#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"
#include <filesystem>
#include <fstream>

#include "program_test_util.hpp"
#include "sim/program/program_validation.hpp"
#include "sim/strategies/strategy_registry.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace gpipe_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

Scenario pipeline(int stages, int replicas, const std::string& more = "", int micro_batches = 4,
                  const std::string& extra = "") {
  return test::scenario_with(
      stages * replicas,
      fmt::format("{{name: gpipe, stages: {}, replicas: {}{}}}", stages, replicas, more),
      "gpt-mini",
      fmt::format("training: {{global_batch: {}, micro_batches: {}}}\n{}", 8 * replicas,
                  micro_batches, extra));
}

// "F3" / "B3" for each compute op of a rank, in order.
std::vector<std::string> compute_order(const Program& p, int rank) {
  std::vector<std::string> out;
  for (const auto& op : p.ranks[static_cast<std::size_t>(rank)])
    if (const auto* c = op.as<ComputeOp>();
        c && c->kind != ComputeKind::optimizer && c->kind != ComputeKind::other)
      out.push_back((c->kind == ComputeKind::forward ? "F" : "B") + std::to_string(c->micro_batch));
  return out;
}

}  // namespace

TEST_CASE("gpipe builds valid programs for many shapes", "[program][gpipe]") {
  for (auto [stages, replicas] : std::vector<std::pair<int, int>>{
           {1, 1}, {2, 1}, {1, 2}, {3, 1}, {1, 3}, {5, 1}, {1, 5}, {2, 4}, {4, 2}, {8, 1}})
    for (const std::string more :
         {"", ", schedule: 1f1b", ", dp_sync: ps-central", ", dp_sync: ps-sharded"}) {
      INFO(stages << " x " << replicas << more);
      const Program p = build_program(pipeline(stages, replicas, more));
      CHECK(p.world_size == stages * replicas);
      CHECK(program_problems(p).empty());
    }
}

TEST_CASE("GPipe: all M forwards before any backward, transfers between neighbours",
          "[program][gpipe]") {
  const Program p = build_program(pipeline(3, 2));
  // rank = replica x S + stage; the middle stage of replica 1 is rank 4.
  CHECK(compute_order(p, 4) ==
        std::vector<std::string>{"F0", "F1", "F2", "F3", "B0", "B1", "B2", "B3"});
  const auto& ops = p.ranks[4];
  // Receives are posted first: 4 activations from rank 3, then 4 gradients from rank 5.
  for (int i = 0; i < 4; ++i) {
    const auto* act = ops[static_cast<std::size_t>(i)].as<RecvOp>();
    const auto* grad = ops[static_cast<std::size_t>(4 + i)].as<RecvOp>();
    REQUIRE(act);
    REQUIRE(grad);
    CHECK(act->peer == 3);
    CHECK(act->tag == 2 * i);
    CHECK(grad->peer == 5);
    CHECK(grad->tag == 2 * i + 1);
    CHECK(ops[static_cast<std::size_t>(i)].nonblocking);
    CHECK(act->bytes == Approx(activation_bytes(model_preset("gpt-mini"), 2)));
  }
  CHECK(test::labels(p, 4)[8] == "wait act s1 mb0");
  CHECK(test::labels(p, 4)[9] == "fwd s1 mb0");
  CHECK(test::labels(p, 4)[10] == "send act s1 mb0");
  // Layers 8 / 3 -> 3, 3, 2; the middle stage holds layers 3 to 5.
  const auto* fwd = ops[9].as<ComputeOp>();
  CHECK(fwd->layer_begin == 3);
  CHECK(fwd->layer_end == 6);
  CHECK(fwd->sequences == 2);
  // Per-stage data-parallel groups: the replicas of stage s.
  REQUIRE(p.groups.size() == 3);
  CHECK(p.groups[1].name == "dp s1");
  CHECK(p.groups[1].ranks == std::vector<int>{1, 4});
  CHECK(ops[ops.size() - 2].label == "allreduce dp s1");
}

TEST_CASE("1F1B: warm-up, steady one-forward-one-backward, cool-down", "[program][gpipe]") {
  const Program p = build_program(pipeline(4, 1, ", schedule: 1f1b", 6));
  // Stage 0 warms up with S - 1 = 3 forwards; the last stage alternates from the start.
  CHECK(compute_order(p, 0) == std::vector<std::string>{"F0", "F1", "F2", "F3", "B0", "F4", "B1",
                                                        "F5", "B2", "B3", "B4", "B5"});
  CHECK(compute_order(p, 2) == std::vector<std::string>{"F0", "F1", "B0", "F2", "B1", "F3", "B2",
                                                        "F4", "B3", "F5", "B4", "B5"});
  CHECK(compute_order(p, 3) == std::vector<std::string>{"F0", "B0", "F1", "B1", "F2", "B2", "F3",
                                                        "B3", "F4", "B4", "F5", "B5"});
  // Fewer micro-batches than the warm-up: all forwards, then all backwards.
  const Program short_one = build_program(pipeline(4, 1, ", schedule: 1f1b", 2));
  CHECK(compute_order(short_one, 0) == std::vector<std::string>{"F0", "F1", "B0", "B1"});
}

TEST_CASE("gpipe data-parallel sync variants", "[program][gpipe]") {
  const Program central = build_program(pipeline(2, 3, ", dp_sync: ps-central"));
  // Stage 1's group is ranks {1, 3, 5}; its first rank is the server.
  CHECK(test::labels(central, 1).back() == "optim s1");
  const auto& server = central.ranks[1];
  CHECK(server[server.size() - 4].label == "gather dp s1");
  CHECK(server[server.size() - 3].label == "average s1");
  CHECK(server[server.size() - 2].label == "scatter dp s1");
  const auto* gather = server[server.size() - 4].as<CollectiveOp>();
  CHECK(gather->root == 1);
  CHECK(gather->algorithm == CollectiveAlgorithm::direct);
  const auto& worker = central.ranks[3];
  CHECK(worker[worker.size() - 3].label == "gather dp s1");
  const Program sharded = build_program(pipeline(2, 3, ", dp_sync: ps-sharded"));
  const auto& ops = sharded.ranks[2];
  CHECK(ops[ops.size() - 4].as<CollectiveOp>()->kind == CollectiveKind::reduce_scatter);
  CHECK(ops[ops.size() - 2].as<CollectiveOp>()->kind == CollectiveKind::allgather);
  CHECK(ops[ops.size() - 2].as<CollectiveOp>()->bytes ==
        Approx(stage_gradient_bytes(model_preset("gpt-mini"), 0, 4)));
}

TEST_CASE("gpipe placement: ranks follow the assignment", "[program][gpipe]") {
  const Program identity = build_program(pipeline(2, 3));
  CHECK(identity.device_of_rank == std::vector<int>{0, 1, 2, 3, 4, 5});
  const Program random =
      build_program(pipeline(2, 3, "", 4, "placement: {kind: random, seed: 3}\n"));
  CHECK(random.device_of_rank != identity.device_of_rank);
  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_gpipe_test");
  std::filesystem::create_directories(dir);
  const auto file = (dir / "assignment.json").string();
  std::ofstream(file)
      << R"({"groups": [[5, 3, 1], [4, 2, 0]], "pipelines": [[5, 4], [3, 2], [1, 0]]})";
  const Program from_file =
      build_program(pipeline(2, 3, "", 4, "placement: {kind: file, file: " + file + "}\n"));
  CHECK(from_file.device_of_rank == std::vector<int>{5, 4, 3, 2, 1, 0});
  // An explicit assignment (from the scheduler) wins over the scenario's placement.
  const Assignment other{2, 3, {{1, 0}, {3, 2}, {5, 4}}};
  CHECK(build_program(pipeline(2, 3), &other).device_of_rank == std::vector<int>{1, 0, 3, 2, 5, 4});
  const Assignment wrong_shape{3, 2, {}};
  CHECK_THROWS_WITH(
      build_program(pipeline(2, 3), &wrong_shape),
      Contains("the placement has 3 stages x 2 replicas, strategy gpipe needs 2 x 3"));
}

}  // namespace gpipe_test
