// The ddp-bucketed Program, timed on one rank (all ranks run the same ops, so every bucket's
// all-reduce can start once that rank posts it; all-reduces run one at a time in issue order),
// must end its last all-reduce at closed_forms' FIFO recurrence, inside the overlap bounds, and
// strictly before the no-overlap bound: the overlap is in the Program.
#include <catch2/catch.hpp>

#include "program_test_util.hpp"
#include "sim/program/closed_forms.hpp"
#include "sim/strategies/strategy_registry.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace ddp_bucketed_timing_test {

using namespace geotrain;

TEST_CASE("ddp-bucketed Program timing = FIFO overlap closed form",
          "[program][closed-form][bucketed]") {
  const ModelSpec m = model_preset("gpt-mini");
  const Program p = build_program(test::scenario_with(
      4, fmt::format("{{name: ddp-bucketed, bucket_size: {}}}", 1.5 * 4 * params_per_layer(m)),
      "gpt-mini", "training: {global_batch: 8, micro_batches: 2}\n"));
  const double flop_rate = 1e12, bandwidth = 1e9, latency = 0.001;
  const auto allreduce_s = [&](double bytes) {
    return ring_allreduce_time(4, bytes, {latency, bandwidth});
  };
  // Replay rank 0.
  double clock = 0, network_free = 0, waited = 0;
  std::vector<double> compute_before_bucket, bucket_comm;
  double compute_since_last = 0;
  for (const auto& op : p.ranks[0]) {
    if (const auto* c = op.as<ComputeOp>(); c && c->kind != ComputeKind::optimizer) {
      clock += c->flops / flop_rate;
      compute_since_last += c->flops / flop_rate;
    } else if (const auto* col = op.as<CollectiveOp>()) {
      REQUIRE(op.nonblocking);
      network_free = std::max(clock, network_free) + allreduce_s(col->bytes);
      compute_before_bucket.push_back(compute_since_last);
      bucket_comm.push_back(allreduce_s(col->bytes));
      compute_since_last = 0;
    } else if (op.as<WaitOp>()) {
      waited = std::max(clock, network_free);
    }
  }
  REQUIRE(bucket_comm.size() == 5);
  CHECK(waited == Approx(bucketed_fifo_time(compute_before_bucket, bucket_comm)).epsilon(1e-12));
  const auto bounds = bucketed_overlap_bounds(compute_before_bucket, bucket_comm);
  CHECK(bounds.lower_s <= waited * (1 + 1e-12));
  CHECK(waited < bounds.upper_s);
}

}  // namespace ddp_bucketed_timing_test
