// ddp-allreduce (COS 598D task 2b): every rank holds the whole model, runs forward + backward of
// its micro-batches (gradient accumulation), then all ranks average gradients with one
// all-reduce (ring, tree or halving-doubling) and step the optimizer. With `compression` the
// all-reduce moves quantized or top-k gradients between its codec ops (compressed_exchange.hpp).
#include "sim/strategies/compressed_exchange.hpp"
#include "sim/strategies/strategy_builders.hpp"

namespace geotrain {

namespace {

Program build_ddp_allreduce(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "ddp-allreduce", data_parallel_devices(placement));
  const int n = p.world_size, layers = s.model.layers;
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const double gradient = stage_gradient_bytes(s.model, 0, layers);
  const auto algorithm = allreduce_algorithm(s, n);
  const Compression compression =
      scenario_compression(s, static_cast<int>(dtype_bytes(s.model.gradient_dtype)));
  for (auto& ops : p.ranks) {
    add_forward_backward(ops, s.model, mb, mb.micro_batches, 0, 0, layers);
    CollectiveOp sync = collective(CollectiveKind::allreduce, world, gradient, algorithm);
    sync.compression = compression;
    add_exchange(ops, sync, "allreduce dp s0", n, layers);
    ops.push_back(optimizer_step(s, 0, 0, layers));
  }
  return p;
}

const StrategyRegistrar kDdpAllreduceRegistrar{{
    {"ddp-allreduce",
     "data parallel; gradients averaged with an all-reduce after backward (COS 598D task 2b)",
     {choice_param("algorithm", "ring", collective_algorithm_names(), "all-reduce algorithm"),
      compression_param()},
     [](const Scenario& s, Diagnostics& diag, int line) {
       data_parallel_check(s, diag, line);
       compression_check(s, diag, line, false);
     }},
    StrategyLayout::data_parallel, build_ddp_allreduce}};

}  // namespace

}  // namespace geotrain
