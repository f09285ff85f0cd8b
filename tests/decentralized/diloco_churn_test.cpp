// DiLoCo with workers that leave and rejoin (scenario `churn:`): who averages in which round,
// the bytes of each round (= a DDP all-reduce of the workers present), the state transfer on
// rejoin, epoch-by-epoch validation and the schedule itself.
#include <catch2/catch.hpp>

#include <algorithm>

#include "program_test_util.hpp"
#include "sim/program/collective_schedule.hpp"
#include "sim/program/program_json.hpp"
#include "sim/program/program_validation.hpp"
#include "sim/scenario/churn_schedule.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/strategies/strategy_registry.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace diloco_churn_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

const std::string kTraining = "training: {global_batch: 40, micro_batches: 2}\n";
// 4 workers; worker 3 away in rounds 1-2 (back at 3), worker 1 gone from round 4 on.
const std::string kChurn =
    kTraining + "churn:\n  - {worker: 3, leave: 1, join: 3}\n  - {worker: 1, leave: 4}\n";

Scenario churn_scenario(const std::string& strategy = "{name: diloco, inner_steps: 2}") {
  return test::scenario_with(4, strategy, "gpt-mini", kChurn);
}

// The group of the averaging op `rank` runs in `round` ("" when it runs none).
std::string averaging_group(const Program& p, int rank, int round) {
  std::string name;
  for (const auto& op : p.ranks[static_cast<std::size_t>(rank)]) {
    if (!op.active_in(round)) continue;
    if (const auto* c = op.as<CollectiveOp>()) name += p.group(c->group).name;
    if (const auto* d = op.as<DynamicOp>()) name += p.group(d->group).name;
  }
  return name;
}

int active_ops(const Program& p, int rank, int round) {
  const auto& ops = p.ranks[static_cast<std::size_t>(rank)];
  return static_cast<int>(
      std::count_if(ops.begin(), ops.end(), [&](const Op& op) { return op.active_in(round); }));
}

// Bytes all ranks send in `round`: collectives by their schedules, sends by their bytes.
double round_bytes(const Program& p, int round, bool sends) {
  double total = 0;
  for (int r = 0; r < p.world_size; ++r)
    for (const auto& op : p.ranks[static_cast<std::size_t>(r)]) {
      if (!op.active_in(round)) continue;
      if (const auto* s = op.as<SendOp>(); s && sends) total += s->bytes;
      const auto* c = op.as<CollectiveOp>();
      if (!c) continue;
      const auto& g = p.group(c->group).ranks;
      const int pos = static_cast<int>(std::find(g.begin(), g.end(), r) - g.begin());
      const auto count = static_cast<std::size_t>(c->bytes / 4);
      total += 4.0 * static_cast<double>(elements_sent(collective_schedule(
                         c->kind, c->algorithm, static_cast<int>(g.size()), pos, 0, count)));
    }
  return total;
}

}  // namespace

TEST_CASE("churn schedule: presence, epochs, rejoins and their state source", "[decentralized][churn]") {
  ChurnSpec spec;
  spec.absences = {{3, 1, 3, 0}, {1, 4, -1, 0}};
  const ChurnSchedule c(spec, 4);
  CHECK(c.epochs() == std::vector<int>{0, 1, 3, 4});
  CHECK(c.present_in(0) == std::vector<int>{0, 1, 2, 3});
  CHECK(c.present_in(2) == std::vector<int>{0, 1, 2});
  CHECK(c.present_in(3) == std::vector<int>{0, 1, 2, 3});
  CHECK(c.present_in(100) == std::vector<int>{0, 2, 3});
  CHECK(c.present_ranges(3) == std::vector<std::pair<int, int>>{{0, 1}, {3, -1}});
  CHECK(c.present_ranges(1) == std::vector<std::pair<int, int>>{{0, 4}});
  CHECK(c.present_ranges(0) == std::vector<std::pair<int, int>>{{0, -1}});
  CHECK(c.joining(3) == std::vector<int>{3});
  CHECK(c.joining(4).empty());
  CHECK(c.state_source(3) == 0);
}

TEST_CASE("diloco churn: the present workers average, one group per membership", "[decentralized][churn]") {
  const Program p = build_program(churn_scenario());
  CHECK(program_problems(p).empty());
  std::vector<std::string> names;
  for (const auto& g : p.groups) names.push_back(g.name);
  CHECK(names == std::vector<std::string>{"world", "world without 3", "world without 1"});
  CHECK(program_epochs(p) == std::vector<int>{0, 1, 3, 4});
  // round: 0 everyone, 1-2 without worker 3, 3 everyone (3 rejoins), 4+ without worker 1.
  for (int r = 0; r < 4; ++r) {
    INFO("rank " << r);
    CHECK(averaging_group(p, r, 0) == "world");
    CHECK(averaging_group(p, r, 1) == (r == 3 ? "" : "world without 3"));
    CHECK(averaging_group(p, r, 2) == averaging_group(p, r, 1));
    CHECK(averaging_group(p, r, 3) == "world");
    CHECK(averaging_group(p, r, 7) == (r == 1 ? "" : "world without 1"));
  }
  // An away worker runs nothing at all.
  CHECK(active_ops(p, 3, 1) == 0);
  CHECK(active_ops(p, 3, 2) == 0);
  CHECK(active_ops(p, 1, 4) == 0);
  CHECK(active_ops(p, 1, 1000) == 0);
  // A full round: 2 x (2 fwd + 2 bwd + optim) + pseudo-gradient + average + outer optim.
  CHECK(active_ops(p, 2, 0) == 13);
  CHECK(active_ops(p, 2, 5) == 13);
  // Without churn the Program has no ranges at all (unchanged from before churn existed).
  const Program plain = build_program(test::scenario_with(4, "{name: diloco, inner_steps: 2}", "gpt-mini", kTraining));
  CHECK_FALSE(has_iteration_ranges(plain));
  CHECK(plain.groups.size() == 1);
}

TEST_CASE("diloco churn: a round's bytes are a DDP all-reduce of the workers present", "[decentralized][churn]") {
  const Program p = build_program(churn_scenario());
  for (int k : {3, 4}) {
    const Program ddp = build_program(test::scenario_with(k, "{name: ddp-allreduce}", "gpt-mini", kTraining));
    const double ddp_bytes = round_bytes(ddp, 0, false);
    INFO("k = " << k);
    CHECK(ddp_bytes > 0);
    if (k == 4) {
      CHECK(round_bytes(p, 0, false) == Approx(ddp_bytes));
      CHECK(round_bytes(p, 3, false) == Approx(ddp_bytes));
    } else {
      CHECK(round_bytes(p, 1, false) == Approx(ddp_bytes));
      CHECK(round_bytes(p, 2, false) == Approx(ddp_bytes));
      CHECK(round_bytes(p, 4, false) == Approx(ddp_bytes));
    }
  }
}

TEST_CASE("diloco churn: the rejoining worker loads weights and outer momentum from the lowest present peer",
          "[decentralized][churn]") {
  const Scenario s = churn_scenario();
  const Program p = build_program(s);
  const double state = 2 * 4 * stage_params(s.model, 0, s.model.layers);
  CHECK(diloco_state_bytes(s) == Approx(state));
  // Only in round 3: rank 0 sends, rank 3 receives, first thing in the round.
  const Op& send = p.ranks[0].front();
  const Op& recv = p.ranks[3].front();
  REQUIRE(send.as<SendOp>());
  REQUIRE(recv.as<RecvOp>());
  CHECK(send.label == "send state to 3");
  CHECK(recv.label == "load state from 0");
  CHECK(send.as<SendOp>()->payload == Payload::state);
  CHECK(recv.as<RecvOp>()->payload == Payload::state);
  CHECK(send.as<SendOp>()->peer == 3);
  CHECK(recv.as<RecvOp>()->peer == 0);
  CHECK(send.as<SendOp>()->bytes == Approx(state));
  CHECK(send.iterations == std::vector<IterationRange>{{3, 4}});
  CHECK(recv.iterations == std::vector<IterationRange>{{3, 4}});
  for (int round : {0, 1, 2, 4, 5}) CHECK(round_bytes(p, round, true) == Approx(round_bytes(p, round, false)));
  CHECK(round_bytes(p, 3, true) == Approx(round_bytes(p, 3, false) + state));
  // The Program file keeps ranges and the state payload.
  CHECK(programs_equal(program_from_json(program_to_json(p), "test"), p));
  const auto j = program_to_json(p);
  CHECK(j["ranks"][0][0]["payload"] == "state");
  CHECK(j["ranks"][0][0]["iterations"] == nlohmann::json::parse("[[3, 4]]"));
}

TEST_CASE("diloco churn with an averaging timeout: a partial-reduce window per membership",
          "[decentralized][churn]") {
  const Program p = build_program(churn_scenario("{name: diloco, inner_steps: 2, averaging: timeout, timeout: 1s}"));
  CHECK(program_problems(p).empty());
  CHECK(averaging_group(p, 0, 1) == "world without 3");
  int dynamic = 0;
  for (const auto& op : p.ranks[0])
    if (op.as<DynamicOp>()) ++dynamic;
  CHECK(dynamic == 3);  // world, world without 3, world without 1: one active per round
}

TEST_CASE("validation checks every epoch and names it", "[decentralized][churn]") {
  Program p = build_program(churn_scenario());
  // Drop the rejoining worker's state receive: rank 0's send in round 3 is left unmatched.
  p.ranks[3].front().iterations = {{9, 10}};
  const auto problems = program_problems(p);
  REQUIRE_FALSE(problems.empty());
  CHECK_THAT(test::joined(problems),
             Contains("iteration 3: rank 0 op 0 'send state to 3': send to 3 tag 3 has no matching recv"));
  CHECK_THAT(test::joined(problems),
             Contains("iteration 9: rank 3 op 0 'load state from 0': recv from 0 tag 3 has no matching send"));
  Program bad = build_program(churn_scenario());
  bad.ranks[2].back().iterations = {{5, 5}};
  CHECK_THAT(test::joined(program_problems(bad)),
             Contains("rank 2 op 14 'outer optim': iterations [5, 5) (expected 0 <= begin < end, or end -1)"));
}

}  // namespace diloco_churn_test
