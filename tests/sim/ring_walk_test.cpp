// The ring recurrence's O(N x G) form (ring_walk_max) against stepping it: same values on random
// rings with staggered starts and a handful of link classes, and with every link different.
#include <catch2/catch.hpp>

#include <random>

#include "sim/engine/ring_walk.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace ring_walk_test {

using namespace geotrain::engine;

namespace {

struct Ring {
  std::vector<double> first, step_s;
};

Ring random_ring(std::mt19937_64& rng, int n, int classes, double spread_s) {
  std::uniform_real_distribution<double> start(0, spread_s), step(0.01, 2.0);
  std::vector<double> values;
  for (int c = 0; c < classes; ++c) values.push_back(step(rng));
  std::uniform_int_distribution<int> pick(0, classes - 1);
  Ring r;
  for (int p = 0; p < n; ++p) {
    r.first.push_back(start(rng));
    r.step_s.push_back(values[static_cast<std::size_t>(pick(rng))]);
  }
  return r;
}

void check_same(const Ring& r, long steps) {
  const auto stepped = ring_walk_steps(r.first, r.step_s, steps);
  const auto fast = ring_walk_max(r.first, r.step_s, steps, 1'000'000);
  REQUIRE(fast.has_value());
  for (std::size_t p = 0; p < r.first.size(); ++p) {
    INFO("position " << p);
    CHECK((*fast)[p] == Approx(stepped[p]).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("ring_walk_max == stepping the recurrence", "[sim][aggregated]") {
  std::mt19937_64 rng(20261128);
  for (int n : {3, 4, 5, 7, 10, 31, 200, 1000}) {
    for (int classes : {1, 2, 3, 20}) {
      for (double spread : {0.0, 0.5, 50.0}) {
        INFO("N = " << n << ", classes = " << classes << ", start spread " << spread << " s");
        const Ring r = random_ring(rng, n, classes, spread);
        check_same(r, 2L * n - 3);  // all-reduce after its first step
        check_same(r, 2L * n + 7);  // longer walks too
      }
    }
  }
}

TEST_CASE("ring_walk_max: one slow link sets every member's pace", "[sim][aggregated]") {
  // Equal starts, links of 1 s except one of 3 s: after 2N-3 steps the member next to the slow
  // link has stayed on it every step but its own, so e = 3 (2N-3) at the slow link's node.
  const int n = 9;
  std::vector<double> first(n, 0.0), step(n, 1.0);
  step[4] = 3.0;
  const auto fast = ring_walk_max(first, step, 2L * n - 3);
  REQUIRE(fast.has_value());
  CHECK((*fast)[4] == Approx(3.0 * (2 * n - 3)));
  // Its neighbour walks there (one step at 3 s... every step but the last): 3 (2N-4) + 1.
  CHECK((*fast)[5] == Approx(3.0 * (2 * n - 4) + 1.0));
}

TEST_CASE("ring_walk_max: too many link classes -> nullopt, and the stepping form is refused for "
          "short walks", "[sim][aggregated]") {
  std::mt19937_64 rng(7);
  const Ring r = random_ring(rng, 50, 50, 1.0);
  CHECK_FALSE(ring_walk_max(r.first, r.step_s, 97, 8).has_value());
  CHECK_THROWS(ring_walk_max(r.first, r.step_s, 40));
}

}  // namespace ring_walk_test
