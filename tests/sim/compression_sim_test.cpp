// Compressed all-reduces in the simulator (docs/compression.md): every rank sends exactly the
// bytes of compressed_schedule (sim/program/compression.hpp), step by step at message level and
// in the same total in the aggregated ring; top-k's all-gather of equal messages against its
// closed form, (N-1) (L + M / B) after the compute.
#include <catch2/catch.hpp>

#include <algorithm>

#include "sim/program/compression.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compression_sim_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr int kRanks = 5;
constexpr double kL = 0.010;   // 10 ms
constexpr double kB = 1.25e8;  // 1 Gbit/s

Scenario compressed_ddp(const std::string& kind, int aggregate_above = 64) {
  const std::string text =
      "devices: {count: 5, profile: V100, regions: [lab]}\n"
      "network: {regions: {intra: {delay: 10ms, bandwidth: 1Gbps}}}\n"
      "model: {preset: gpt-tiny}\n"
      "training: {global_batch: 10, micro_batches: 1, optimizer: sgd}\n"
      "strategy: {name: ddp-allreduce, compression: {kind: " + kind + "}}\n"
      "simulation: {aggregate_collectives_above: " + std::to_string(aggregate_above) + "}\n";
  return parse_scenario(text, "compression.yaml", "");
}

const CollectiveOp& the_collective(const Program& p) {
  for (const auto& op : p.ranks[0])
    if (const auto* c = op.as<CollectiveOp>()) return *c;
  throw std::logic_error("no collective");
}

}  // namespace

TEST_CASE("compressed all-reduce: the simulator sends compressed_schedule's bytes, at message level and aggregated",
          "[sim][compression]") {
  for (const std::string kind : {"int8", "fp4", "topk"}) {
    INFO(kind);
    const Program p = build_program(compressed_ddp(kind));
    const CollectiveOp& c = the_collective(p);
    double expected = 0;
    for (int r = 0; r < kRanks; ++r) expected += compressed_bytes_sent(c, kRanks, r);
    CHECK(expected == Approx(2.0 * (kRanks - 1) * wire_equivalent(c, kRanks).bytes /
                             (kind == "topk" ? 2.0 : 1.0)));
    const auto exact = simulate_in_child(uniform_scenario(kRanks, kL, kB), p, {}, tflop_seconds());
    INFO(exact.error);
    REQUIRE(exact.ok);
    CHECK(exact.summary.at("bytes").at("collectives").get<double>() == expected);

    // Above aggregate_collectives_above (here 2): the aggregated ring of the same total.
    Scenario aggregated = uniform_scenario(kRanks, kL, kB);
    aggregated.simulation.aggregate_collectives_above = 2;
    const auto ring = simulate_in_child(aggregated, p, {}, tflop_seconds());
    INFO(ring.error);
    REQUIRE(ring.ok);
    CHECK(ring.summary.at("bytes").at("collectives").get<double>() == Approx(expected).epsilon(1e-9));
    CHECK(ring.makespan() == Approx(exact.makespan()).epsilon(1e-3));
    if (kind == "topk") {
      const double message = static_cast<double>(topk_message_bytes(c.compression, compressed_elements(c)));
      CHECK(exact.makespan() == Approx(rank0_compute_s(p) + (kRanks - 1) * (kL + message / kB)).epsilon(1e-3));
    }
  }
}

}  // namespace compression_sim_test
