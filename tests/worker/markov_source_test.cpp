#include <catch2/catch.hpp>

#include <cmath>

#include "emu/worker/markov_source.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace markov_source_test {

using geotrain::MarkovSource;

TEST_CASE("one successor per token is a deterministic cycle: entropy 0, uniform stationary",
          "[worker][markov]") {
  const MarkovSource s(16, 1, 3);
  CHECK(s.entropy_rate_nats() == Approx(0).margin(1e-15));
  for (double p : s.stationary()) CHECK(p == Approx(1.0 / 16).epsilon(1e-9));
  const auto seq = s.sequence(5, 40);
  for (std::size_t i = 1; i < seq.size(); ++i) CHECK(seq[i] == (seq[i - 1] + 1) % 16);
}

TEST_CASE("stationary distribution and entropy rate match their definitions", "[worker][markov]") {
  const int V = 64, K = 4;
  const MarkovSource s(V, K, 11);
  // pi P = pi
  for (int w = 0; w < V; ++w) {
    double flow = 0;
    for (int v = 0; v < V; ++v) flow += s.stationary()[v] * s.probability(v, w);
    CHECK(flow == Approx(s.stationary()[w]).margin(1e-12));
  }
  // Bounded by log K and clearly above 0 with the probabilities bounded away from 0.
  CHECK(s.entropy_rate_nats() < std::log(K));
  CHECK(s.entropy_rate_nats() > 0.5 * std::log(K));
  // The sampled sequences have that entropy: mean -log p(next | token) over 200k transitions,
  // within 4 standard errors (the per-transition spread is below 3 nats).
  double sum = 0;
  int n = 0;
  for (std::uint64_t i = 0; i < 2000; ++i) {
    const auto seq = s.sequence(i, 101);
    for (std::size_t t = 1; t < seq.size(); ++t, ++n) {
      const double p = s.probability(static_cast<int>(seq[t - 1]), static_cast<int>(seq[t]));
      REQUIRE(p > 0);
      sum -= std::log(p);
    }
  }
  CHECK(sum / n == Approx(s.entropy_rate_nats()).margin(4 * 3.0 / std::sqrt(n)));
}

TEST_CASE("sequences depend only on seed and index", "[worker][markov]") {
  const MarkovSource a(256, 4, 7), b(256, 4, 7), c(256, 4, 8);
  CHECK(a.sequence(12, 65) == b.sequence(12, 65));
  CHECK(a.sequence(12, 65) != a.sequence(13, 65));
  CHECK(a.sequence(12, 65) != c.sequence(12, 65));
  CHECK(a.entropy_rate_nats() == b.entropy_rate_nats());
}

}  // namespace markov_source_test
