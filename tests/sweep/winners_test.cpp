// Winners: the highest effective throughput wins; margins and the time-per-work criterion.
#include "sim/sweep/winners.hpp"

#include <catch2/catch.hpp>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace winners_test {

using namespace geotrain::sweep;

namespace {
PointResult ok(const std::string& label, double tokens_per_s) {
  PointResult r;
  r.strategy = label;
  r.ok = true;
  r.tokens_per_s = tokens_per_s;
  return r;
}
SweepSpec three(WinnerBy by) {
  SweepSpec s;
  s.strategies = {
      {"a", "{name: x}", 1.0, 1}, {"b", "{name: y}", 0.25, 2}, {"c", "{name: z}", 1.0, 3}};
  s.winner_by = by;
  return s;
}
}  // namespace

TEST_CASE("throughput: the fastest wins, margin to the runner-up", "[sweep][winners]") {
  auto spec = three(WinnerBy::throughput);
  spec.strategies[1].statistical_efficiency = 1.0;
  const auto a = ok("a", 100), b = ok("b", 400), c = ok("c", 200);
  const auto st = rank_point(spec, {&a, &b, &c});
  CHECK_FALSE(st[0].winner);
  CHECK(st[1].winner);
  CHECK(*st[1].margin_to_runner_up == Approx(2.0));
  CHECK_FALSE(st[0].margin_to_runner_up);
  CHECK(*st[0].relative_to_winner == Approx(0.25));
  CHECK(*st[1].relative_to_winner == 1.0);
}

TEST_CASE("time per work: efficiency turns the ranking", "[sweep][winners]") {
  const auto spec = three(WinnerBy::time_per_work);
  const auto a = ok("a", 100), b = ok("b", 300), c = ok("c", 50);
  const auto st = rank_point(spec, {&a, &b, &c});
  CHECK(st[0].winner);  // 100 x 1 beats 300 x 0.25
  CHECK(*st[0].margin_to_runner_up == Approx(100.0 / 75.0));
}

TEST_CASE("skipped runs never win, ties go to the first listed", "[sweep][winners]") {
  const auto spec = three(WinnerBy::throughput);
  PointResult skipped;
  skipped.strategy = "a";
  skipped.tokens_per_s = 1e9;  // ignored: not ok
  const auto b = ok("b", 10), c = ok("c", 40);
  auto st = rank_point(spec, {&skipped, &b, &c});
  CHECK(st[2].winner);
  CHECK_FALSE(st[0].relative_to_winner);
  const auto a2 = ok("a", 40);
  auto spec2 = spec;
  spec2.strategies[1].statistical_efficiency = 1;
  st = rank_point(spec2, {&a2, &b, &c});
  CHECK(st[0].winner);
  CHECK_FALSE(st[2].winner);
  CHECK(*st[0].margin_to_runner_up == 1.0);
  const auto only = ok("a", 5);
  st = rank_point(spec2, {&only, &skipped, &skipped});
  CHECK(st[0].winner);
  CHECK_FALSE(st[0].margin_to_runner_up);
}

}  // namespace winners_test
