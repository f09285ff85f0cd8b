// The aggregated ring (O(N) flows) against the message-level ring (O(N^2) messages): same times
// within 1e-6 relative, with uneven links and members entering at different times.
#include <catch2/catch.hpp>

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

}  // namespace aggregated_ring_test
