// hivemind's butterfly parts (sim/program/butterfly_parts.hpp): the water-filling optimum of its
// load-balancing program against a closed form and against random feasible splits, and the
// element ranges every executor cuts from the fractions.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include "sim/common/error.hpp"
#include "sim/program/butterfly_parts.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace butterfly_parts_test {

using namespace geotrain;

namespace {

// The slowest peer's time, in units of the vector's size: max_i (1 + (n - 2) f_i) / b_i.
double slowest(const std::vector<double>& b, const std::vector<double>& f) {
  const double n = static_cast<double>(b.size());
  double t = 0;
  for (std::size_t i = 0; i < b.size(); ++i) t = std::max(t, (1 + (n - 2) * f[i]) / b[i]);
  return t;
}

// The slowest owner's time (the peers that own a part).
double slowest_owner(const std::vector<double>& b, const std::vector<double>& f) {
  const double n = static_cast<double>(b.size());
  double t = 0;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (f[i] > 0) t = std::max(t, (1 + (n - 2) * f[i]) / b[i]);
  return t;
}

}  // namespace

TEST_CASE("butterfly parts: hivemind's optimum in closed form", "[program][butterfly]") {
  // b = 4, 2, 1, 1: the two fastest own parts and finish together at T = (n - 2 + 2) / 6 = 2/3:
  // f = (T b - 1) / (n - 2) = 5/6 and 1/6; the slow two own nothing (their client traffic alone
  // takes 1 > T).
  const auto f = butterfly_fractions({4, 2, 1, 1}, PartRule::hivemind);
  REQUIRE(f.size() == 4);
  CHECK(f[0] == Approx(5.0 / 6));
  CHECK(f[1] == Approx(1.0 / 6));
  CHECK(f[2] == 0);
  CHECK(f[3] == 0);
  CHECK(slowest_owner({4, 2, 1, 1}, f) == Approx(2.0 / 3));
  // Equal bandwidths: equal parts; two peers: equal parts (every split takes as long).
  for (double x : butterfly_fractions({3, 3, 3, 3, 3}, PartRule::hivemind)) CHECK(x == Approx(0.2));
  for (double x : butterfly_fractions({1, 9}, PartRule::hivemind)) CHECK(x == Approx(0.5));
  CHECK(butterfly_fractions({7}, PartRule::hivemind) == std::vector<double>{1.0});
  // The other rules.
  const auto p = butterfly_fractions({1, 3}, PartRule::proportional);
  CHECK(p[0] == Approx(0.25));
  CHECK(p[1] == Approx(0.75));
  for (double x : butterfly_fractions({1, 2, 3}, PartRule::equal)) CHECK(x == Approx(1.0 / 3));
  CHECK_THROWS_AS(butterfly_fractions({1, 0, 2}, PartRule::hivemind), InputError);
  CHECK(part_rule_named("hivemind") == PartRule::hivemind);
  CHECK_FALSE(part_rule_named("lp").has_value());
}

TEST_CASE("butterfly parts: no random split beats the optimum", "[program][butterfly]") {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> bw(0.5, 10);
  std::exponential_distribution<double> draw(1.0);
  for (int n : {3, 4, 6, 9}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> b(static_cast<std::size_t>(n));
      for (double& x : b) x = bw(rng);
      const auto f = butterfly_fractions(b, PartRule::hivemind);
      CHECK(std::accumulate(f.begin(), f.end(), 0.0) == Approx(1.0));
      for (double x : f) CHECK(x >= 0);
      const double best = slowest(b, f);
      for (int k = 0; k < 2000; ++k) {  // Dirichlet(1, ..., 1) splits
        std::vector<double> g(b.size());
        double sum = 0;
        for (double& x : g) sum += (x = draw(rng));
        for (double& x : g) x /= sum;
        REQUIRE(slowest(b, g) >= best * (1 - 1e-12));
      }
    }
  }
}

TEST_CASE("butterfly parts: element ranges tile the vector", "[program][butterfly]") {
  const std::vector<double> f{0.4, 0.3, 0.2, 0.1, 0.0};
  for (std::size_t count : {0, 1, 9, 1000, 1001}) {
    std::size_t next = 0;
    for (int q = 0; q < 5; ++q) {
      const Transfer t = part_range(count, f, q);
      CHECK(t.peer == q);
      CHECK(t.offset == next);
      CHECK(std::abs(static_cast<double>(t.count) - f[static_cast<std::size_t>(q)] * static_cast<double>(count)) <= 1.0);
      next += t.count;
    }
    CHECK(next == count);
  }
}

}  // namespace butterfly_parts_test
