// local-sgd against its closed form under the flow model (uniform links): one iteration is H
// local steps of compute, then a ring all-reduce of the weights and the averaging op:
//   T = sum of the rank's compute ops + 2(N-1)/N S/B + 2(N-1) L,  S = parameters x 4 B (fp32).
// Compute ops last flops x 1e-12 s (tflop_seconds), so the sum is exact.
#include <catch2/catch.hpp>

#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace local_sgd_sim_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kL = 0.010;   // 10 ms
constexpr double kB = 1.25e8;  // 1 Gbit/s

Scenario local_sgd(int sync_every) {
  const std::string text =
      "devices: {count: 4, profile: V100, regions: [lab]}\n"
      "network: {regions: {intra: {delay: 10ms, bandwidth: 1Gbps}}}\n"
      "model: {preset: gpt-mini}\n"
      "training: {global_batch: 8, micro_batches: 2, optimizer: sgd}\n"
      "strategy: {name: local-sgd, sync_every: " +
      std::to_string(sync_every) + "}\n";
  return parse_scenario(text, "local_sgd.yaml", "");
}

}  // namespace

TEST_CASE("local-sgd: H local steps then one ring all-reduce of the weights",
          "[sim][closed-form][local-sgd]") {
  const int n = 4;
  const double weights = stage_gradient_bytes(local_sgd(1).model, 0, local_sgd(1).model.layers);
  for (int h : {1, 3}) {
    INFO("H = " << h);
    const Program p = build_program(local_sgd(h));
    // 2 micro-batches x (fwd + bwd) + optimizer per local step, then all-reduce and average.
    REQUIRE(p.ranks[0].size() == static_cast<std::size_t>(h * 5 + 2));
    const auto* all = p.ranks[0][static_cast<std::size_t>(h * 5)].as<CollectiveOp>();
    REQUIRE(all);
    CHECK(all->bytes == Approx(weights));
    const auto r = simulate_in_child(uniform_scenario(n, kL, kB), p, {}, tflop_seconds());
    INFO(r.error);
    REQUIRE(r.ok);
    CHECK(r.makespan() ==
          Approx(rank0_compute_s(p) + ring_allreduce_closed_form_s(n, weights, kL, kB)).epsilon(1e-3));
    // Every member sends 2(N-1)/N x S once per period, whatever H.
    CHECK(r.summary.at("bytes").at("collectives").get<double>() ==
          Approx(2.0 * (n - 1) / n * weights * n).epsilon(1e-6));
  }
}

TEST_CASE("local-sgd: a period counts H global batches", "[sim][local-sgd]") {
  const Program one = build_program(local_sgd(1)), eight = build_program(local_sgd(8));
  CHECK(eight.sequences_per_iteration == Approx(8 * one.sequences_per_iteration));
  CHECK(eight.tokens_per_iteration == Approx(8 * one.tokens_per_iteration));
}

}  // namespace local_sgd_sim_test
