// Gloo's own collectives (algorithm `library`) against the closed form of the loop the worker's
// Gloo runs: 1 MiB segments, two in flight, each send waiting for the receiver's notice, and the
// segments to one peer leaving back to back on one connection.
#include <catch2/catch.hpp>

#include "sim/program/gloo_algorithms.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace gloo_model_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

ChildRun run_library(const Scenario& s, int n, CollectiveKind kind, double bytes) {
  Program p = empty_program(n);
  for (auto& ops : p.ranks) ops.push_back(collective(kind, bytes, CollectiveAlgorithm::library));
  return simulate_in_child(s, p, {}, tflop_seconds());
}

// One phase (reduce-scatter or allgather) of I iterations in lock step, I even, d one-way delay,
// sigma = segment / bandwidth, 2 d >= sigma: iteration 2k starts at 2k d + k sigma (it waits
// for the segment posted two iterations earlier: notice d, data d + sigma), the last segment
// arrives at I d + (I/2 + 1) sigma.
double gloo_ring_allreduce_s(int n, double bytes, double d, double bandwidth_Bps) {
  const GlooRingPlan plan = gloo_ring_plan(static_cast<std::size_t>(bytes), n);
  const double sigma = static_cast<double>(plan.segment_bytes) / bandwidth_Bps;
  const auto iterations = static_cast<double>(plan.iterations);
  return 2 * (iterations * d + (iterations / 2 + 1) * sigma);
}

}  // namespace

TEST_CASE("Gloo ring all-reduce: segments, two in flight, rendezvous (closed form)",
          "[sim][closed-form][gloo]") {
  const double d = 0.050, b = 1.25e7;  // 50 ms, 100 Mbit/s: 1 MiB takes 84 ms < 2 d
  for (int n : {2, 4, 5}) {
    INFO("N = " << n);
    const double bytes = 4.0 * n * kMiB;  // 4 segments per rank, an even iteration count
    const auto r = run_library(uniform_scenario(n, d, b), n, CollectiveKind::allreduce, bytes);
    REQUIRE(r.ok);
    CHECK(r.makespan() == Approx(gloo_ring_allreduce_s(n, bytes, d, b)).epsilon(1e-3));
  }
}

TEST_CASE("Gloo's all-reduce is window-bound where a send/recv ring is not", "[sim][gloo]") {
  // docs/simulator-models.md: 4 ranks, 64 MiB, 67 ms one-way, 0.79 Gbit/s: Gloo measured 6.95 s,
  // the send/recv ring (with its rendezvous) 1.895 s.
  const double d = 0.067, b = 0.79e9 / 8, bytes = 64 * kMiB;
  const auto gloo = run_library(uniform_scenario(4, d, b), 4, CollectiveKind::allreduce, bytes);
  REQUIRE(gloo.ok);
  CHECK(gloo.makespan() == Approx(6.95).epsilon(0.03));
  CHECK(gloo.makespan() == Approx(gloo_ring_allreduce_s(4, bytes, d, b)).epsilon(1e-3));
  Program ring = empty_program(4);
  for (auto& ops : ring.ranks) ops.push_back(collective(CollectiveKind::allreduce, bytes));
  const auto p2p = simulate_in_child(uniform_scenario(4, d, b), ring, {}, tflop_seconds());
  REQUIRE(p2p.ok);
  CHECK(gloo.makespan() > 3 * p2p.makespan());
}

TEST_CASE("Gloo gather and scatter: the root posts every transfer at once", "[sim][gloo]") {
  const double d = 0.020, b = 1.25e8, bytes = 10e6;
  for (auto kind : {CollectiveKind::gather, CollectiveKind::scatter}) {
    // Each transfer has its own link: notice d, then d + S/B.
    const auto r = run_library(uniform_scenario(4, d, b), 4, kind, bytes);
    REQUIRE(r.ok);
    CHECK(r.makespan() == Approx(2 * d + bytes / b).epsilon(1e-3));
  }
}

TEST_CASE("Gloo broadcast: binomial tree, each level a notice and a transfer", "[sim][gloo]") {
  const double d = 0.020, b = 1.25e8, bytes = 10e6;
  // 8 members: three levels; a member's receive is posted at the start, so only the root's
  // sends wait a notice (d), and later levels find theirs already arrived.
  const auto r = run_library(uniform_scenario(8, d, b), 8, CollectiveKind::broadcast, bytes);
  REQUIRE(r.ok);
  CHECK(r.makespan() == Approx(d + 3 * (d + bytes / b)).epsilon(1e-3));
}

TEST_CASE("emulation.collectives: gloo makes every collective Gloo's own", "[sim][gloo]") {
  const double d = 0.050, b = 1.25e7, bytes = 16 * kMiB;
  Scenario s = uniform_scenario(4, d, b);
  s.emulation.collectives = "gloo";
  Program p = empty_program(4);
  for (auto& ops : p.ranks) ops.push_back(collective(CollectiveKind::allreduce, bytes));  // ring
  const auto r = simulate_in_child(s, p, {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.makespan() == Approx(gloo_ring_allreduce_s(4, bytes, d, b)).epsilon(1e-3));
}

TEST_CASE("Gloo collectives it does not have are refused before the run", "[sim][gloo][errors]") {
  const auto r = run_library(uniform_scenario(3, 0.01, 1e8), 3, CollectiveKind::reduce_scatter, 3e6);
  REQUIRE_FALSE(r.ok);
  CHECK(r.input_error);
  CHECK_THAT(r.error, Catch::Contains("rank 0 op 0") && Catch::Contains("has none"));
}

}  // namespace gloo_model_test
