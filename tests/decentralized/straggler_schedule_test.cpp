// Seeded stragglers: the same (seed, rank, iteration, op) always sleeps the same, the rate
// matches the probability, and only forward/backward ops sleep.
#include <catch2/catch.hpp>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/straggler_schedule.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace straggler_schedule_test {

using namespace geotrain;

TEST_CASE("straggler draws are deterministic and hit the probability", "[decentralized]") {
  const StragglerSchedule a({0.1, 0.1, 7}), b({0.1, 0.1, 7}), c({0.1, 0.1, 8});
  int hits = 0, same = 0, differ = 0;
  const int n = 40000;
  for (int i = 0; i < n; ++i) {
    const int rank = i % 8, op = i / 8 % 50;
    const std::int64_t iteration = i / 400;
    const double s = a.draw_s(rank, iteration, op);
    REQUIRE((s == 0 || s == 0.1));
    hits += s > 0;
    same += s == b.draw_s(rank, iteration, op);
    differ += s != c.draw_s(rank, iteration, op);
  }
  CHECK(same == n);
  // Binomial(40000, 0.1): mean 4000, standard deviation 60; 6 sigma either side.
  CHECK(hits > 3640);
  CHECK(hits < 4360);
  CHECK(differ > 0);
  // Evaluation order does not matter (counter-based): a draw repeated later is unchanged.
  CHECK(a.draw_s(3, 17, 4) == a.draw_s(3, 17, 4));
}

TEST_CASE("stragglers sleep only before forward and backward ops", "[decentralized]") {
  const Scenario s = test::scenario_with(2, "{name: ddp-allreduce}", "gpt-mini",
                                         "training: {global_batch: 8, micro_batches: 2}\n");
  const Program p = build_program(s);
  const StragglerSchedule always({1.0, 0.25, 1}), never({0.0, 0.25, 1});
  for (int i = 0; i < static_cast<int>(p.ranks[0].size()); ++i) {
    const Op& op = p.ranks[0][static_cast<std::size_t>(i)];
    const auto* c = op.as<ComputeOp>();
    const bool fwd_bwd =
        c && (c->kind == ComputeKind::forward || c->kind == ComputeKind::backward);
    CHECK(always.sleep_s(0, 0, i, op) == (fwd_bwd ? 0.25 : 0.0));
    CHECK(never.sleep_s(0, 0, i, op) == 0.0);
  }
  CHECK_THROWS_AS(StragglerSchedule({1.5, 0.1, 1}), Error);
}

}  // namespace straggler_schedule_test
