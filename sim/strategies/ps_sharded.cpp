// ps-sharded (DT-FM's dist_dp_sharded_ps): rank q owns chunk q of the gradient. Every rank sends
// each chunk straight to its owner (reduce-scatter, direct), owners average their chunk, and send
// it straight back to everyone (all-gather, direct). Each rank moves 2(N-1)/N of the gradient,
// like a ring, but in one step instead of 2(N-1).
#include "sim/strategies/strategy_builders.hpp"

namespace geotrain {

namespace {

Program build_ps_sharded(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "ps-sharded", data_parallel_devices(placement));
  const int n = p.world_size, layers = s.model.layers;
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const double gradient = stage_gradient_bytes(s.model, 0, layers);
  for (auto& ops : p.ranks) {
    add_forward_backward(ops, s.model, mb, mb.micro_batches, 0, 0, layers);
    ops.push_back(make_op(
        collective(CollectiveKind::reduce_scatter, world, gradient, CollectiveAlgorithm::direct),
        "reduce-scatter dp s0"));
    ops.push_back(averaging(s.model, gradient / n, 0, 0, layers, "average shard s0"));
    ops.push_back(
        make_op(collective(CollectiveKind::allgather, world, gradient, CollectiveAlgorithm::direct),
                "allgather dp s0"));
    ops.push_back(optimizer_step(s, 0, 0, layers));
  }
  return p;
}

const StrategyRegistrar kPsShardedRegistrar{{
    {"ps-sharded",
     "every rank owns a shard of the parameters: reduce-scatter to owners, all-gather back "
     "(DT-FM's sharded parameter server)",
     {},
     data_parallel_check},
    StrategyLayout::data_parallel, build_ps_sharded}};

}  // namespace

}  // namespace geotrain
