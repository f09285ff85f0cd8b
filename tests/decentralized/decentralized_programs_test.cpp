// The four decentralized strategies build valid Programs for N = 1, 2, 3, 5, 8 (pipelines:
// S x D with S, D in {1, 2, 3}), and their byte counts follow the algorithms' closed forms.
#include <catch2/catch.hpp>

#include <filesystem>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/program/program_validation.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/strategies/strategy_registry.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace decentralized_programs_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

const std::string kTraining = "training: {global_batch: 40, micro_batches: 2}\n";

int count_compute(const Program& p, int rank, ComputeKind kind) {
  int n = 0;
  for (const auto& op : p.ranks[static_cast<std::size_t>(rank)])
    if (const auto* c = op.as<ComputeOp>(); c && c->kind == kind) ++n;
  return n;
}

std::vector<const DynamicOp*> dynamic_ops(const Program& p, int rank) {
  std::vector<const DynamicOp*> out;
  for (const auto& op : p.ranks[static_cast<std::size_t>(rank)])
    if (const auto* d = op.as<DynamicOp>()) out.push_back(d);
  return out;
}

// Collective bytes per rank buffer (all-reduces of the whole gradient in these Programs).
double collective_buffer_bytes(const Program& p, int rank) {
  double bytes = 0;
  for (const auto& op : p.ranks[static_cast<std::size_t>(rank)])
    if (const auto* c = op.as<CollectiveOp>()) bytes += c->bytes;
  return bytes;
}

}  // namespace

TEST_CASE("diloco and adpsgd build valid programs for N = 1, 2, 3, 5, 8", "[decentralized]") {
  for (const std::string name :
       {"{name: diloco, inner_steps: 3}", "{name: diloco, inner_steps: 2, averaging: timeout}",
        "{name: adpsgd, seed: 7}"})
    for (int n : {1, 2, 3, 5, 8}) {
      INFO(name << " N = " << n);
      const Scenario s = test::scenario_with(n, name, "gpt-mini", kTraining);
      const Program p = build_program(s);
      CHECK(p.world_size == n);
      CHECK(program_problems(p).empty());
      const bool diloco = s.strategy.name == "diloco";
      const int steps = diloco ? static_cast<int>(s.strategy.integer("inner_steps")) : 1;
      for (int r = 0; r < n; ++r) {
        CHECK(count_compute(p, r, ComputeKind::forward) == 2 * steps);
        CHECK(count_compute(p, r, ComputeKind::backward) == 2 * steps);
        CHECK(count_compute(p, r, ComputeKind::optimizer) == steps);
        CHECK(count_compute(p, r, ComputeKind::outer_optimizer) == (diloco ? 1 : 0));
      }
      CHECK(p.sequences_per_iteration == Approx(40.0 * steps));
    }
}

TEST_CASE("sdpipe-preduce and hetpipe build valid programs for S x D up to 3 x 3",
          "[decentralized]") {
  for (const std::string name : {"sdpipe-preduce", "hetpipe"})
    for (int stages : {1, 2, 3})
      for (int replicas : {1, 2, 3}) {
        INFO(name << " " << stages << " x " << replicas);
        const Scenario s = test::scenario_with(
            stages * replicas,
            fmt::format("{{name: {}, stages: {}, replicas: {}}}", name, stages, replicas),
            "gpt-mini", "training: {global_batch: 12, micro_batches: 3}\n");
        const Program p = build_program(s);
        CHECK(program_problems(p).empty());
        CHECK(p.world_size == stages * replicas);
        for (int r = 0; r < p.world_size; ++r) {
          CHECK(count_compute(p, r, ComputeKind::forward) == 3);
          // hetpipe: the server applies every replica's push; the others apply none.
          const int optim =
              name == "hetpipe" ? (r / stages == 0 ? replicas : 0) : 1;
          CHECK(count_compute(p, r, ComputeKind::optimizer) == optim);
          CHECK(dynamic_ops(p, r).size() == (name == "sdpipe-preduce" ? 1u : 0u));
        }
      }
}

TEST_CASE("hetpipe with staleness s: s + 1 waves per iteration, local updates, pulls waited at its end",
          "[decentralized]") {
  for (int staleness : {0, 1, 2}) {
    INFO("staleness " << staleness);
    const int waves = staleness + 1;
    const Scenario s = test::scenario_with(
        4, fmt::format("{{name: hetpipe, stages: 2, replicas: 2, staleness: {}}}", staleness),
        "gpt-mini", "training: {global_batch: 12, micro_batches: 3}\n");
    const Program p = build_program(s);
    CHECK(program_problems(p).empty());
    CHECK(p.sequences_per_iteration == Approx(12.0 * waves));
    for (int r = 0; r < 4; ++r) {
      const bool server = r / 2 == 0;
      CHECK(count_compute(p, r, ComputeKind::forward) == 3 * waves);
      // The server applies its own and the other replica's push every wave; a stale virtual
      // worker updates its local copy after every wave (rank = replica x 2 + stage).
      CHECK(count_compute(p, r, ComputeKind::optimizer) == (server ? 2 * waves : staleness > 0 ? waves : 0));
      int pushes = 0, pulls = 0, blocking_pulls = 0;
      for (const auto& op : p.ranks[static_cast<std::size_t>(r)]) {
        if (const auto* x = op.as<SendOp>(); x && x->peer % 2 == r % 2 && x->peer != r) ++pushes;
        if (const auto* x = op.as<RecvOp>(); x && x->peer % 2 == r % 2 && x->peer != r) {
          ++pulls;
          if (!op.nonblocking) ++blocking_pulls;
        }
      }
      // Same-stage traffic per wave: a worker pushes once and pulls once; the server receives
      // one push and sends one reply.
      CHECK(pushes == waves);
      CHECK(pulls == waves);
      if (!server) CHECK(blocking_pulls == (staleness > 0 ? 0 : waves));
    }
  }
}

TEST_CASE("diloco moves one DDP all-reduce per outer round: H x fewer bytes per inner step",
          "[decentralized]") {
  for (int h : {1, 50, 500}) {
    INFO("H = " << h);
    const Scenario ddp = test::scenario_with(4, "{name: ddp-allreduce}", "gpt-mini", kTraining);
    const Scenario dl = test::scenario_with(
        4, fmt::format("{{name: diloco, inner_steps: {}}}", h), "gpt-mini", kTraining);
    const Program pd = build_program(ddp), pl = build_program(dl);
    // gpt-mini's gradients are fp32 on the wire, like diloco's default wire dtype.
    const double per_step_ddp = collective_buffer_bytes(pd, 0);
    const double per_round = collective_buffer_bytes(pl, 0);
    CHECK(per_round == Approx(per_step_ddp));
    CHECK(per_round / h == Approx(per_step_ddp / h));
    CHECK(per_step_ddp / (per_round / h) == Approx(static_cast<double>(h)));
    CHECK(pl.ranks[0].size() == static_cast<std::size_t>(h) * 5 + 3);
  }
}

TEST_CASE("diloco's wire dtype halves the bytes in fp16 and bf16", "[decentralized]") {
  const auto bytes = [](const std::string& dtype) {
    return diloco_wire_bytes(test::scenario_with(
        2, "{name: diloco, wire_dtype: " + dtype + "}", "gpt-mini", kTraining));
  };
  const Scenario s = test::scenario_with(2, "{name: diloco}", "gpt-mini", kTraining);
  CHECK(bytes("fp32") == Approx(4 * stage_params(s.model, 0, s.model.layers)));
  CHECK(bytes("fp16") == Approx(bytes("fp32") / 2));
  CHECK(bytes("bf16") == Approx(bytes("fp32") / 2));
}

TEST_CASE("diloco with an averaging timeout uses a fixed-window partial reduce",
          "[decentralized]") {
  const Scenario s = test::scenario_with(3, "{name: diloco, averaging: timeout, timeout: 90s}",
                                         "gpt-mini", kTraining);
  const Program p = build_program(s);
  for (int r = 0; r < 3; ++r) {
    const auto d = dynamic_ops(p, r);
    REQUIRE(d.size() == 1);
    REQUIRE(std::holds_alternative<PartialReduceRule>(d[0]->rule));
    CHECK(std::get<PartialReduceRule>(d[0]->rule).window_s == 90);
    CHECK(std::get<PartialReduceRule>(d[0]->rule).window_min_s == 90);
    CHECK(std::get<PartialReduceRule>(d[0]->rule).window_max_s == 90);
    CHECK(std::get<PartialReduceRule>(d[0]->rule).full_sync_every == 0);
    CHECK(d[0]->bytes == Approx(diloco_wire_bytes(s)));
  }
}

TEST_CASE("sdpipe-preduce: windows from the scenario, full sync every 10 x replicas by default",
          "[decentralized]") {
  const Scenario s = test::scenario_with(
      6, "{name: sdpipe-preduce, stages: 2, replicas: 3, window_initial: 2ms}", "gpt-mini",
      kTraining);
  const Program p = build_program(s);
  for (int r = 0; r < 6; ++r) {
    const auto d = dynamic_ops(p, r);
    REQUIRE(d.size() == 1);
    REQUIRE(std::holds_alternative<PartialReduceRule>(d[0]->rule));
    CHECK(std::get<PartialReduceRule>(d[0]->rule).window_s == Approx(2e-3));
    CHECK(std::get<PartialReduceRule>(d[0]->rule).window_min_s == Approx(1e-5));
    CHECK(std::get<PartialReduceRule>(d[0]->rule).window_max_s == Approx(1e-2));
    CHECK(std::get<PartialReduceRule>(d[0]->rule).full_sync_every == 30);
    CHECK(p.group(d[0]->group).ranks.size() == 3u);
  }
  const Scenario t = test::scenario_with(
      6, "{name: sdpipe-preduce, stages: 2, replicas: 3, full_sync_every: 4}", "gpt-mini",
      kTraining);
  CHECK(std::get<PartialReduceRule>(dynamic_ops(build_program(t), 0)[0]->rule).full_sync_every == 4);
}

TEST_CASE("adpsgd: one gossip per step over everyone, seeded from the scenario",
          "[decentralized]") {
  const Program p =
      build_program(test::scenario_with(5, "{name: adpsgd, seed: 42}", "gpt-mini", kTraining));
  for (int r = 0; r < 5; ++r) {
    const auto d = dynamic_ops(p, r);
    REQUIRE(d.size() == 1);
    REQUIRE(std::holds_alternative<GossipRule>(d[0]->rule));
    CHECK(std::get<GossipRule>(d[0]->rule).seed == 42u);
    CHECK(p.group(d[0]->group).ranks.size() == 5u);
  }
}

TEST_CASE("decentralized strategies reject bad parameters with the file and key",
          "[decentralized]") {
  const auto problems = [](const std::string& strategy, int devices = 4) {
    try {
      test::scenario_with(devices, strategy, "gpt-mini", kTraining);
    } catch (const InputError& e) {
      return test::joined(e.problems());
    }
    return std::string();
  };
  CHECK_THAT(problems("{name: diloco, inner_steps: 0}"), Contains("strategy.inner_steps"));
  CHECK_THAT(problems("{name: diloco, wire_dtype: fp8}"), Contains("wire_dtype"));
  CHECK_THAT(problems("{name: sdpipe-preduce, stages: 2, replicas: 2, window_initial: 20ms}"),
             Contains("strategy.window_initial"));
  CHECK_THAT(problems("{name: hetpipe, stages: 2, replicas: 3}"),
             Contains("stages x replicas = 2 x 3 = 6 but the scenario has 4 devices"));
  const Scenario s =
      test::scenario_with(4, "{name: hetpipe, stages: 2, replicas: 2, server: 2}", "gpt-mini",
                          kTraining);
  CHECK_THROWS_WITH(build_program(s), Contains("strategy.server = 2: no such replica"));
}

TEST_CASE("every scenario in scenarios/decentralized loads and builds a valid program",
          "[decentralized]") {
  const std::string dir = test::kSource + "/scenarios/decentralized";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    INFO(entry.path().string());
    const Scenario s = load_scenario(entry.path().string());
    CHECK(program_problems(build_program(s)).empty());
    ++files;
  }
  CHECK(files == 16);
}

}  // namespace decentralized_programs_test
