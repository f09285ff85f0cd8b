// local-sgd (Local SGD / periodic model averaging; Stich, ICLR 2019; Lin et al., "Don't Use
// Large Mini-Batches, Use Local SGD", ICLR 2020): data parallel where every replica takes
// `sync_every` H optimizer steps on its own shard without communicating, then all replicas
// average their WEIGHTS with one all-reduce. It is DiLoCo without the outer optimizer (and so
// without the pseudo-gradient and the outer momentum), the simplest way to trade communication
// for staleness: per local step the network moves H x fewer bytes than ddp-allreduce.
// One Program iteration = one averaging period:
//   H x (forward + backward of the replica's micro-batches, optimizer step) ("fwd h<k> mb<i>",
//   "bwd h<k> mb<i>", "optim h<k>"), then "allreduce weights" (the whole model in the gradient
//   dtype, fp32 by default: the bytes of one DDP all-reduce) and "average weights" (divide the
//   sum by N). Throughput figures count H x the global batch.
// The all-reduce's payload is `weights`: the emulator's worker averages the model, not the
// gradients (Payload, sim/program/program.hpp). With `compression: {kind: int8 | fp4}` the
// weights travel quantized (compressed_exchange.hpp); top-k is refused (it cannot average weights).
#include <fmt/format.h>

#include "sim/strategies/compressed_exchange.hpp"

#include "sim/strategies/strategy_builders.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

Program build_local_sgd(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "local-sgd", data_parallel_devices(placement));
  const int n = p.world_size, layers = s.model.layers;
  const auto h = static_cast<int>(s.strategy.integer("sync_every"));
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const double weights = stage_gradient_bytes(s.model, 0, layers);
  const auto algorithm = allreduce_algorithm(s, n);
  const Compression compression =
      scenario_compression(s, static_cast<int>(dtype_bytes(s.model.gradient_dtype)));
  for (auto& ops : p.ranks) {
    add_local_steps(ops, s, mb, h);
    CollectiveOp average = collective(CollectiveKind::allreduce, world, weights, algorithm);
    average.payload = Payload::weights;
    average.compression = compression;
    add_exchange(ops, average, "allreduce weights", n, layers);
    ops.push_back(averaging(s.model, weights, 0, 0, layers, "average weights"));
  }
  p.sequences_per_iteration *= h;
  p.tokens_per_iteration *= h;
  p.model_flops_per_iteration *= h;
  return p;
}

const StrategyRegistrar kLocalSgdRegistrar{{
    {"local-sgd",
     "Local SGD / periodic model averaging: sync_every local steps without communication, "
     "then the replicas' weights are averaged with one all-reduce (DiLoCo without the outer "
     "optimizer)",
     {integer_param("sync_every", 8, 1, 1e6, "local steps H between two weight averages"),
      choice_param("algorithm", "ring", collective_algorithm_names(), "all-reduce algorithm"),
      compression_param()},
     [](const Scenario& s, Diagnostics& diag, int line) {
       data_parallel_check(s, diag, line);
       compression_check(s, diag, line, true);
     }},
    StrategyLayout::data_parallel, build_local_sgd}};

}  // namespace

}  // namespace geotrain
