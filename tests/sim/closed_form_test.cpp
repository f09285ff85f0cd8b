// The engine against closed forms under the flow model (uniform links unless stated): every
// figure within 0.1%.
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace closed_form_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kL = 0.010;    // 10 ms
constexpr double kB = 1.25e8;   // 1 Gbit/s
constexpr double kS = 100e6;    // 100 MB

ChildRun run_allreduce(const Scenario& s, int n, double bytes, CollectiveAlgorithm a = CollectiveAlgorithm::ring) {
  Program p = empty_program(n);
  for (auto& ops : p.ranks) ops.push_back(collective(CollectiveKind::allreduce, bytes, a));
  return simulate_in_child(s, p, {}, tflop_seconds());
}

}  // namespace

TEST_CASE("one transfer takes latency + bytes / bandwidth", "[sim][closed-form]") {
  Program p = empty_program(2);
  p.ranks[0].push_back(send(1, kS, 7));
  p.ranks[1].push_back(recv(0, kS, 7));
  const auto r = simulate_in_child(uniform_scenario(2, kL, kB), p, {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.makespan() == Approx(kL + kS / kB).epsilon(1e-3));
}

TEST_CASE("ring all-reduce on uniform links: 2(N-1)/N S/B + 2(N-1) L", "[sim][closed-form]") {
  for (int n : {2, 3, 5, 8}) {
    INFO("N = " << n);
    const auto r = run_allreduce(uniform_scenario(n, kL, kB), n, kS);
    REQUIRE(r.ok);
    CHECK(r.makespan() == Approx(ring_allreduce_closed_form_s(n, kS, kL, kB)).epsilon(1e-3));
  }
}

TEST_CASE("ring all-reduce edge cases: N = 1 and zero bytes", "[sim][closed-form]") {
  const auto one = run_allreduce(uniform_scenario(1, kL, kB), 1, kS);
  REQUIRE(one.ok);
  CHECK(one.makespan() == 0.0);
  for (int n : {2, 5}) {
    const auto zero = run_allreduce(uniform_scenario(n, kL, kB), n, 0);
    REQUIRE(zero.ok);
    CHECK(zero.makespan() == Approx(2.0 * (n - 1) * kL).epsilon(1e-3));
  }
}

TEST_CASE("heterogeneous ring: the slowest link bounds every step", "[sim][closed-form]") {
  const int n = 5;
  std::vector<double> delay(25, kL), bw(25, kB);
  delay[2 * 5 + 3] = 0.050;  // link 2 -> 3: 50 ms, 0.2 Gbit/s
  bw[2 * 5 + 3] = 0.25e8;
  const auto r = run_allreduce(matrix_scenario(n, delay, bw), n, kS);
  REQUIRE(r.ok);
  const double step = std::max(kL + kS / n / kB, 0.050 + kS / n / 0.25e8);
  CHECK(r.makespan() == Approx(2.0 * (n - 1) * step).epsilon(1e-3));
}

TEST_CASE("gather/scatter through rank 0", "[sim][closed-form]") {
  const int n = 4;
  SECTION("per-pair links: the root's transfers do not share") {
    const auto r = run_allreduce(uniform_scenario(n, kL, kB), n, kS, CollectiveAlgorithm::direct);
    REQUIRE(r.ok);
    CHECK(r.makespan() == Approx(2 * (kL + kS / kB)).epsilon(1e-3));
  }
  SECTION("regions platform: N-1 flows share the root's NIC") {
    Program p = empty_program(n);
    for (auto& ops : p.ranks) ops.push_back(collective(CollectiveKind::allreduce, kS, CollectiveAlgorithm::direct));
    engine::SimulationOptions o;
    o.platform.pair_links_max_devices = 0;
    const auto r = simulate_in_child(one_region_scenario(n, kL, kB), p, o, tflop_seconds());
    REQUIRE(r.ok);
    CHECK(r.summary["platform"] == "regions");
    CHECK(r.makespan() == Approx(2 * (kL + (n - 1) * kS / kB)).epsilon(1e-3));
  }
}

TEST_CASE("GPipe: (M+S-1) x stage time + boundary transfers", "[sim][closed-form]") {
  const double tf = 1.0, tb = 2.0, bytes = 50e6;  // a transfer (0.41 s) hides under compute
  for (auto [stages, micro] : {std::pair{4, 8}, std::pair{2, 3}, std::pair{5, 1}}) {
    INFO("S = " << stages << ", M = " << micro);
    const auto r = simulate_in_child(uniform_scenario(stages, kL, kB),
                                     gpipe_program(stages, micro, tf, tb, bytes), {}, tflop_seconds());
    REQUIRE(r.ok);
    const double expected = (micro + stages - 1) * (tf + tb) + 2 * (stages - 1) * (kL + bytes / kB);
    CHECK(r.makespan() == Approx(expected).epsilon(1e-3));
    CHECK(r.summary["bubble_fraction"].get<double>() > 0);
  }
}

TEST_CASE("GPipe bubble fraction without communication is (S-1)/(M+S-1)", "[sim][closed-form]") {
  const int stages = 4, micro = 8;
  const auto r = simulate_in_child(uniform_scenario(stages, 0, 1e15),
                                   gpipe_program(stages, micro, 1.0, 2.0, 0), {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.summary["bubble_fraction"].get<double>() ==
        Approx(double(stages - 1) / (micro + stages - 1)).epsilon(1e-3));
}

TEST_CASE("bucketed all-reduce overlapping backward stays within its bounds", "[sim][closed-form]") {
  const int n = 4, buckets = 4;
  const double tb = 2.0, bucket_bytes = kS / buckets;
  Program p = empty_program(n);
  for (auto& ops : p.ranks) {
    std::vector<int> pending;
    for (int k = 0; k < buckets; ++k) {
      ops.push_back(compute(tb / buckets, ComputeKind::backward));
      pending.push_back(static_cast<int>(ops.size()));
      ops.push_back(collective(CollectiveKind::allreduce, bucket_bytes, CollectiveAlgorithm::ring, 0, true));
    }
    ops.push_back(wait(pending));
  }
  const auto r = simulate_in_child(uniform_scenario(n, kL, kB), p, {}, tflop_seconds());
  REQUIRE(r.ok);
  const double ar = ring_allreduce_closed_form_s(n, bucket_bytes, kL, kB);
  // Exact: bucket k starts when its gradients exist and the previous bucket is done (one FIFO
  // stream per group).
  double t = 0;
  for (int k = 1; k <= buckets; ++k) t = std::max(k * tb / buckets, t) + ar;
  CHECK(r.makespan() == Approx(t).epsilon(1e-3));
  CHECK(r.makespan() >= std::max(tb + ar, tb / buckets + buckets * ar) * (1 - 1e-3));
  CHECK(r.makespan() <= (tb + buckets * ar) * (1 + 1e-3));
}

}  // namespace closed_form_test
