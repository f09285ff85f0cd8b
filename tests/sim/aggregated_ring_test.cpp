// The aggregated ring (O(N) flows) against the message-level ring (O(N^2) messages): same times
// within 1e-6 relative, with uneven links and members entering at different times.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/engine/aggregated_ring.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace aggregated_ring_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

Scenario uneven_scenario(int n) {
  std::vector<double> delay, bw;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      delay.push_back(0.001 * (1 + (i * 7 + j * 3) % 11));        // 1..11 ms
      bw.push_back(1e8 * (1 + (i * 5 + j * 2) % 7) / 4.0);       // 25..175 MB/s
    }
  return matrix_scenario(n, delay, bw);
}

ChildRun run_kind(int n, CollectiveKind kind, int aggregate_above) {
  Scenario s = uneven_scenario(n);
  s.simulation.aggregate_collectives_above = aggregate_above;
  Program p = empty_program(n);
  for (int r = 0; r < n; ++r) {
    p.ranks[static_cast<std::size_t>(r)].push_back(compute(0.05 * ((r * 3) % n)));  // staggered entry
    p.ranks[static_cast<std::size_t>(r)].push_back(collective(kind, 12'345'679));
  }
  return simulate_in_child(s, p, {}, tflop_seconds());
}

}  // namespace

TEST_CASE("aggregated ring == message-level ring", "[sim][aggregated]") {
  for (auto kind : {CollectiveKind::allreduce, CollectiveKind::reduce_scatter, CollectiveKind::allgather}) {
    for (int n : {2, 3, 5, 8, 13}) {
      INFO("kind " << to_string(kind) << ", N = " << n);
      const auto chunked = run_kind(n, kind, 100000);
      const auto aggregated = run_kind(n, kind, 1);
      REQUIRE(chunked.ok);
      REQUIRE(aggregated.ok);
      CHECK(aggregated.summary["collectives"][0]["algorithm"] == "ring (aggregated)");
      CHECK(chunked.summary["collectives"][0]["algorithm"] == "ring");
      for (int r = 0; r < n; ++r)
        CHECK(aggregated.end(r, 1) == Approx(chunked.end(r, 1)).epsilon(1e-6));
      CHECK(aggregated.summary["bytes"]["collectives"].get<double>() ==
            Approx(chunked.summary["bytes"]["collectives"].get<double>()).epsilon(1e-12));
    }
  }
}

TEST_CASE("plan_ring on uniform links reproduces the ring closed form", "[sim][aggregated]") {
  const int n = 6;
  const double latency = 0.01, bandwidth = 1e8;
  const std::size_t bytes = 6'000'000;
  const auto plan = engine::plan_ring(CollectiveKind::allreduce, std::vector<double>(n, 0.0), bytes,
                                      [&](int, double b) { return latency + b / bandwidth; });
  for (double f : plan.finish_s) CHECK(f == Approx(2.0 * (n - 1) * (latency + 1e6 / bandwidth)));
  for (double b : plan.send_bytes) CHECK(b == Approx(2.0 * (n - 1) * 1e6));
}

TEST_CASE("plan_ring: the O(N x G) all-reduce equals stepping it", "[sim][aggregated]") {
  // 1,000 members in ten regions (links inside a region alike, the ten between them not),
  // staggered entries, a buffer that does not split evenly (chunks of two sizes).
  const int n = 1000;
  std::vector<double> entry(n), latency(n), rate(n);
  for (int p = 0; p < n; ++p) {
    const bool boundary = p % 100 == 99;
    entry[static_cast<std::size_t>(p)] = 0.003 * ((p * 37) % 101);
    latency[static_cast<std::size_t>(p)] = boundary ? 0.02 + 0.01 * (p / 100) : 0.005;
    rate[static_cast<std::size_t>(p)] = boundary ? 1e8 * (1 + p / 100) : 1.25e9;
  }
  const std::size_t bytes = 1'234'567'891;
  auto step = [&](int q, double b) {
    return latency[static_cast<std::size_t>(q)] + b / rate[static_cast<std::size_t>(q)];
  };
  const auto stepped = engine::plan_ring(CollectiveKind::allreduce, entry, bytes, step);
  const auto closed = engine::plan_ring(CollectiveKind::allreduce, entry, bytes, step, 999);
  // The closed form moves the mean chunk every step: at most one byte more or less than the
  // stepped form's per step, 2N-3 steps, on links of at least 1e8 B/s.
  const double bound_s = (2.0 * n - 3) / 1e8;
  for (int p = 0; p < n; ++p) {
    INFO("member " << p);
    const auto i = static_cast<std::size_t>(p);
    CHECK(std::abs(closed.finish_s[i] - stepped.finish_s[i]) <= bound_s);
    CHECK(std::abs(closed.link_end_s[i] - stepped.link_end_s[i]) <= bound_s);
    CHECK(closed.send_bytes[static_cast<std::size_t>(p)] == stepped.send_bytes[static_cast<std::size_t>(p)]);
  }
}

TEST_CASE("simulate: an all-reduce in closed form ends where the stepped one does",
          "[sim][aggregated]") {
  for (int n : {5, 13}) {
    INFO("N = " << n);
    Scenario stepped = uneven_scenario(n), closed = uneven_scenario(n);
    stepped.simulation.aggregate_collectives_above = closed.simulation.aggregate_collectives_above = 1;
    closed.simulation.ring_closed_form_above = 2;
    Program p = empty_program(n);
    for (int r = 0; r < n; ++r) {
      p.ranks[static_cast<std::size_t>(r)].push_back(compute(0.05 * ((r * 3) % n)));
      p.ranks[static_cast<std::size_t>(r)].push_back(collective(CollectiveKind::allreduce, 12'345'679));
    }
    const auto a = simulate_in_child(stepped, p, {}, tflop_seconds());
    const auto b = simulate_in_child(closed, p, {}, tflop_seconds());
    REQUIRE(a.ok);
    REQUIRE(b.ok);
    for (int r = 0; r < n; ++r) CHECK(b.end(r, 1) == Approx(a.end(r, 1)).epsilon(1e-6));
  }
}

}  // namespace aggregated_ring_test
