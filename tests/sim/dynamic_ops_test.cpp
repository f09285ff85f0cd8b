// Dynamic ops (gossip, partial reduce) and stragglers in the engine, against closed forms on
// uniform links (delay L, bandwidth B, one link per ordered pair: flows never share).
#include <catch2/catch.hpp>

#include "sim/program/dynamic_rules.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace dynamic_ops_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kL = 0.01, kB = 1e8, kS = 1e6;
// One message of the partial-reduce coordinator protocol (128 bytes) between two hosts; the
// coordinator sits on rank 0's host.
constexpr double kMessage = kL + 128 / kB;

enum class Rule { partial_reduce, gossip };

Op dynamic(Rule rule, double window_s = 0, int full_sync_every = 0, std::uint64_t seed = 5) {
  DynamicOp d;
  if (rule == Rule::gossip)
    d.rule = GossipRule{seed};
  else
    d.rule = PartialReduceRule{window_s, window_s, window_s, full_sync_every};
  d.group = 0;
  d.bytes = kS;
  return {d, false, rule == Rule::gossip ? "gossip" : "preduce"};
}

}  // namespace

TEST_CASE("gossip: paired ranks exchange weights in L + S/B, a lonely rank at once",
          "[sim][dynamic]") {
  for (int n : {2, 3, 4, 5}) {
    INFO("N = " << n);
    Program p = empty_program(n);
    for (auto& ops : p.ranks) ops.push_back(dynamic(Rule::gossip));
    const auto r = simulate_in_child(uniform_scenario(n, kL, kB), p, {}, tflop_seconds());
    REQUIRE(r.ok);
    const auto partner = gossip_pairing(5, 0, n);
    for (int rank = 0; rank < n; ++rank)
      CHECK(r.end(rank, 0) ==
            Approx(partner[static_cast<std::size_t>(rank)] < 0 ? 0.0 : kL + kS / kB).margin(1e-9));
  }
}

TEST_CASE("gossip: a rank waits for its late partner only", "[sim][dynamic]") {
  const int n = 4;
  const auto partner = gossip_pairing(5, 0, n);
  Program p = empty_program(n);
  for (int rank = 0; rank < n; ++rank) {
    p.ranks[static_cast<std::size_t>(rank)].push_back(compute(rank == 0 ? 1.0 : 0.0));
    p.ranks[static_cast<std::size_t>(rank)].push_back(dynamic(Rule::gossip));
  }
  const auto r = simulate_in_child(uniform_scenario(n, kL, kB), p, {}, tflop_seconds());
  REQUIRE(r.ok);
  for (int rank = 0; rank < n; ++rank) {
    const bool with_late = rank == 0 || partner[static_cast<std::size_t>(rank)] == 0;
    CHECK(r.end(rank, 1) == Approx((with_late ? 1.0 : 0.0) + kL + kS / kB).margin(1e-9));
  }
}

TEST_CASE("partial reduce: the ranks ready within the window all-reduce, a late one goes alone",
          "[sim][dynamic]") {
  const double window = 0.05;
  Program p = empty_program(3);
  for (int rank = 0; rank < 3; ++rank) {
    p.ranks[static_cast<std::size_t>(rank)].push_back(compute(rank == 2 ? 1.0 : 0.0));
    p.ranks[static_cast<std::size_t>(rank)].push_back(dynamic(Rule::partial_reduce, window));
  }
  const auto r = simulate_in_child(uniform_scenario(3, kL, kB), p, {}, tflop_seconds());
  REQUIRE(r.ok);
  // Rank 0's arrival opens the window at 0 (the coordinator is on its host), rank 1's is heard
  // one message later, inside it; the window closes at `window`; rank 1 learns the decision
  // three messages later, and the two-member ring all-reduce (reduce-scatter + all-gather, one
  // step of S/2 each) starts once both are in it.
  const double pair = window + 3 * kMessage + 2 * (kL + kS / 2 / kB);
  CHECK(r.end(0, 1) == Approx(pair).margin(1e-9));
  CHECK(r.end(1, 1) == Approx(pair).margin(1e-9));
  // Ranks 0 and 1 have had their last round and left: nobody is waited for, rank 2 goes as soon
  // as its arrival is heard and the decision is back (four messages).
  CHECK(r.end(2, 1) == Approx(1.0 + 4 * kMessage).margin(1e-9));
}

TEST_CASE("partial reduce: everyone ready closes the window at once", "[sim][dynamic]") {
  Program p = empty_program(3);
  for (auto& ops : p.ranks) ops.push_back(dynamic(Rule::partial_reduce, 10.0));
  const auto r = simulate_in_child(uniform_scenario(3, kL, kB), p, {}, tflop_seconds());
  REQUIRE(r.ok);
  // All three are heard by one message after 0 (rank 0 at once), the window closes then; ranks
  // 1 and 2 learn it three messages later; three-member ring: 2 (N - 1) steps of S / N.
  for (int rank = 0; rank < 3; ++rank)
    CHECK(r.end(rank, 0) == Approx(4 * kMessage + 4 * (kL + kS / 3 / kB)).margin(1e-6));
}

TEST_CASE("stragglers: a seeded sleep before every forward/backward op, none before others",
          "[sim][stragglers]") {
  Scenario s = uniform_scenario(2, kL, kB);
  s.stragglers = {1.0, 0.25, 7};
  Program p = empty_program(2);
  for (auto& ops : p.ranks) {
    ops.push_back(compute(1.0, ComputeKind::forward));
    ops.push_back(compute(1.0, ComputeKind::backward));
    ops.push_back(compute(1.0, ComputeKind::optimizer));
  }
  const auto r = simulate_in_child(s, p, {}, tflop_seconds());
  REQUIRE(r.ok);
  for (int rank = 0; rank < 2; ++rank) {
    CHECK(r.end(rank, 0) == Approx(1.25));
    CHECK(r.end(rank, 1) == Approx(2.5));
    CHECK(r.end(rank, 2) == Approx(3.5));
  }
}

}  // namespace dynamic_ops_test
