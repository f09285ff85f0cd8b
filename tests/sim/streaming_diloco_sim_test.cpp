// streaming-diloco against its closed form under the flow model (uniform links, one rank per
// device, compute ops of flops x 1e-12 s): every rank runs the same ops, so a round is its
// compute, in order, where each fragment's all-reduce starts after its pseudo-gradient op and
// its wait ends no earlier than start + 2(N-1)/N S_f/B + 2(N-1) L. With exchanges shorter
// than the overlap nothing waits: the round is its compute alone, as DiLoCo's is plus one
// whole-model all-reduce.
#include <catch2/catch.hpp>

#include <string>

#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace streaming_diloco_sim_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr int kN = 4;

Scenario streaming(int fragments, int overlap, const std::string& extra = "") {
  const std::string text =
      "devices: {count: 4, profile: V100, regions: [lab]}\n"
      "network: {regions: {intra: {delay: 10ms, bandwidth: 1Gbps}}}\n"
      "model: {preset: gpt-mini}\n"
      "training: {global_batch: 8, micro_batches: 1, optimizer: adamw}\n"
      "strategy: {name: streaming-diloco, inner_steps: 8, fragments: " + std::to_string(fragments) +
      ", overlap_steps: " + std::to_string(overlap) + extra + "}\n";
  return parse_scenario(text, "streaming.yaml", "");
}

// The closed form: rank 0's ops in order, compute adding its seconds, a collective's transfer
// starting where it is posted, a wait ending at the later of now and that start + ring time.
double closed_form_s(const Program& p, double latency, double bandwidth) {
  const auto& ops = p.ranks[0];
  std::vector<double> done(ops.size(), 0);
  double clock = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (const auto* c = ops[i].as<ComputeOp>()) clock += c->flops * 1e-12;
    if (const auto* c = ops[i].as<CollectiveOp>())
      done[i] = clock + ring_allreduce_closed_form_s(kN, c->bytes, latency, bandwidth);
    if (const auto* w = ops[i].as<WaitOp>())
      for (int j : w->ops) clock = std::max(clock, done[static_cast<std::size_t>(j)]);
  }
  return clock;
}

}  // namespace

TEST_CASE("streaming-diloco: fragments staggered over the round, exchanges overlapping the "
          "next inner steps, against the closed form", "[sim][closed-form][streaming-diloco]") {
  const Scenario s = streaming(4, 1);
  const Program p = build_program(s);
  const double model_bytes = stage_gradient_bytes(s.model, 0, s.model.layers);
  double fragment_bytes = 0;
  int exchanges = 0;
  for (const auto& op : p.ranks[0])
    if (const auto* c = op.as<CollectiveOp>()) fragment_bytes += c->bytes, ++exchanges;
  CHECK(exchanges == 4);
  CHECK(fragment_bytes == Approx(model_bytes));  // the whole model once per round
  // The worker runs it: the Program says its outer state is kept per fragment.
  CHECK(p.not_emulated.empty());
  REQUIRE(p.outer_step);
  CHECK(p.outer_step->fragmented);
  CHECK(p.outer_step->mixing == 0.5);
  // Fast links (every exchange hidden behind one inner step) and slow ones (every one shows).
  for (const auto& [latency, bandwidth] : {std::pair{1e-5, 1.25e11}, std::pair{0.010, 1.25e6}}) {
    INFO("latency " << latency << " s, bandwidth " << bandwidth << " B/s");
    const auto r = simulate_in_child(uniform_scenario(kN, latency, bandwidth), p, {}, tflop_seconds());
    INFO(r.error);
    REQUIRE(r.ok);
    const double expected = closed_form_s(p, latency, bandwidth);
    CHECK(r.makespan() == Approx(expected).epsilon(1e-3));
    if (bandwidth > 1e10) CHECK(expected == Approx(rank0_compute_s(p)).epsilon(1e-12));
    else CHECK(expected > rank0_compute_s(p) * 1.01);
  }
}

TEST_CASE("streaming-diloco: an update must land inside its round", "[sim][streaming-diloco]") {
  CHECK_NOTHROW(streaming(4, 1));
  CHECK_NOTHROW(streaming(1, 7));  // one fragment, synced after step 0, lands at step 7
  try {
    streaming(4, 2);  // the last fragment syncs after step 6 of 8: at most 1 step of overlap
    FAIL("accepted");
  } catch (const ScenarioError& e) {
    CHECK(e.problems().at(0).find("strategy.overlap_steps") != std::string::npos);
    CHECK(e.problems().at(0).find("expected overlap_steps <= 1") != std::string::npos);
  }
}

}  // namespace streaming_diloco_sim_test
