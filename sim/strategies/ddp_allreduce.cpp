// ddp-allreduce (COS 598D task 2b): every rank holds the whole model, runs forward + backward of
// its micro-batches (gradient accumulation), then all ranks average gradients with one
// all-reduce (ring, tree or halving-doubling) and step the optimizer.
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
  for (auto& ops : p.ranks) {
    add_forward_backward(ops, s.model, mb, mb.micro_batches, 0, 0, layers);
    ops.push_back(make_op(collective(CollectiveKind::allreduce, world, gradient, algorithm),
                          "allreduce dp s0"));
    ops.push_back(optimizer_step(s, 0, 0, layers));
  }
  return p;
}

const StrategyRegistrar kDdpAllreduceRegistrar{{
    {"ddp-allreduce",
     "data parallel; gradients averaged with an all-reduce after backward (COS 598D task 2b)",
     {choice_param("algorithm", "ring", collective_algorithm_names(), "all-reduce algorithm")},
     data_parallel_check},
    StrategyLayout::data_parallel, build_ddp_allreduce}};

}  // namespace

}  // namespace geotrain
