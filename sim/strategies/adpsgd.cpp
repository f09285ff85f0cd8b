// adpsgd (AD-PSGD, Lian et al. 2018; SD-Pipe's --adpsgd baseline): data parallel without a
// global barrier. One Program iteration = one local step and one gossip round:
//   forward + backward of the replica's micro-batches, the optimizer step on the local model,
//   then a gossip DynamicOp: the rank averages its weights with its partner in this round's
//   seeded pairing of all ranks (dynamic_rules.hpp: gossip_pairing(seed, round, N); round k is
//   the k-th time the rank runs this op, so ranks at different iterations only ever wait for
//   their own partner), then "average with peer" (element-wise mean of the two copies).
// Bytes: each paired rank sends its weights once per round (gradient dtype, the same size a
// DDP all-reduce moves per rank); a rank left out of an odd pairing sends nothing that round.
#include "sim/strategies/strategy_builders.hpp"

namespace geotrain {

namespace {

Program build_adpsgd(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "adpsgd", data_parallel_devices(placement));
  const int n = p.world_size, layers = s.model.layers;
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const double weights = stage_gradient_bytes(s.model, 0, layers);
  for (auto& ops : p.ranks) {
    add_forward_backward(ops, s.model, mb, mb.micro_batches, 0, 0, layers);
    ops.push_back(optimizer_step(s, 0, 0, layers));
    DynamicOp d;
    d.rule = GossipRule{static_cast<std::uint64_t>(s.strategy.integer("seed"))};
    d.group = world;
    d.bytes = weights;
    d.payload = Payload::weights;
    Op gossip;
    gossip.body = d;
    gossip.label = "gossip";
    ops.push_back(std::move(gossip));
    ops.push_back(averaging(s.model, weights, 0, 0, layers, "average with peer"));
  }
  return p;
}

const StrategyRegistrar kAdpsgdRegistrar{{
    {"adpsgd",
     "AD-PSGD: after each local step a worker averages its weights with one random peer "
     "(seeded pairing per round), no global barrier",
     {integer_param("seed", 1, 0, 9e18, "seed of the peer pairing")},
     data_parallel_check},
    StrategyLayout::data_parallel, build_adpsgd}};

}  // namespace

}  // namespace geotrain
