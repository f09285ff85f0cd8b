// diloco (DiLoCo, Douillard et al. 2023; OpenDiLoCo): data parallel without per-step
// communication. One Program iteration is ONE OUTER ROUND:
//   H inner steps, each = forward + backward of the replica's micro-batches and an inner
//   optimizer step (training.optimizer at training.learning_rate: AdamW at 4e-4 in the paper),
//   then "pseudo-gradient" (an element-wise op: weights at the start of the round minus now),
//   then the pseudo-gradient is averaged over the workers in `wire_dtype`:
//     averaging = wait-for-all: one all-reduce (strategy.algorithm) of everyone;
//     averaging = timeout: a partial reduce (DynamicOp) whose window opens when the first worker
//       is ready and lasts `timeout`, so workers that are later are left out of that round
//       (hivemind's averaging_timeout),
//   then "outer optim": Nesterov SGD (outer_lr, outer_momentum) applies the averaged
//   pseudo-gradient to the round's starting weights (ComputeKind::outer_optimizer).
// Bytes on the wire per round equal one DDP all-reduce in the wire dtype, so per inner step
// they shrink H-fold (tests/decentralized). Throughput figures count the H steps.
#include <fmt/format.h>

#include "sim/strategies/strategy_builders.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

DType wire_dtype(const std::string& name) {
  return name == "fp16" ? DType::fp16 : name == "bf16" ? DType::bf16 : DType::fp32;
}

// A pass over the whole model's fp32 weights costing `flops` and `bytes` per parameter.
Op whole_model_op(const ModelSpec& m, ComputeKind kind, double flops, double bytes,
                  const char* label) {
  ComputeOp op;
  op.kind = kind;
  op.micro_batch = -1;
  op.layer_end = m.layers;
  const double params = stage_params(m, 0, m.layers);
  op.flops = flops * params;
  op.memory_bytes = bytes * params;
  return make_op(op, label);
}

// Element-wise pass over fp32 master weights: read two buffers, write one.
Op pseudo_gradient_op(const ModelSpec& m) {
  return whole_model_op(m, ComputeKind::other, 1, 12, "pseudo-gradient");
}

// Nesterov SGD: read weight, pseudo-gradient and momentum, write momentum and weight (20 B);
// momentum update, look-ahead and step are ~5 flop per parameter.
Op outer_optimizer_op(const ModelSpec& m) {
  return whole_model_op(m, ComputeKind::outer_optimizer, 5, 20, "outer optim");
}

}  // namespace

double diloco_wire_bytes(const Scenario& s) {
  const double gradient = stage_gradient_bytes(s.model, 0, s.model.layers);
  return gradient / static_cast<double>(dtype_bytes(s.model.gradient_dtype)) *
         static_cast<double>(dtype_bytes(wire_dtype(s.strategy.text("wire_dtype"))));
}

Program build_diloco(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "diloco", data_parallel_devices(placement));
  const int n = p.world_size, layers = s.model.layers;
  const auto h = static_cast<int>(s.strategy.integer("inner_steps"));
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const double bytes = diloco_wire_bytes(s);
  const bool timeout = s.strategy.text("averaging") == "timeout";
  const auto algorithm = timeout ? CollectiveAlgorithm::ring : allreduce_algorithm(s, n);
  for (auto& ops : p.ranks) {
    for (int step = 0; step < h; ++step) {
      for (int i = 0; i < mb.micro_batches; ++i)
        ops.push_back(make_op(forward_op(s.model, 0, i, 0, layers, mb.sequences),
                              fmt::format("fwd h{} mb{}", step, i)));
      for (int i = 0; i < mb.micro_batches; ++i)
        ops.push_back(make_op(backward_op(s.model, 0, i, 0, layers, mb.sequences),
                              fmt::format("bwd h{} mb{}", step, i)));
      ops.push_back(make_op(optimizer_op(s.model, s.training.optimizer, 0, 0, layers),
                            fmt::format("optim h{}", step)));
    }
    ops.push_back(pseudo_gradient_op(s.model));
    if (timeout) {
      DynamicOp d;
      d.rule = DynamicRule::partial_reduce;
      d.group = world;
      d.bytes = bytes;
      d.window_s = d.window_min_s = d.window_max_s = s.strategy.number("timeout");
      Op op;
      op.body = d;
      op.label = "average pseudo-gradient";
      ops.push_back(std::move(op));
    } else {
      ops.push_back(make_op(collective(CollectiveKind::allreduce, world, bytes, algorithm),
                            "allreduce pseudo-gradient"));
    }
    ops.push_back(outer_optimizer_op(s.model));
  }
  p.sequences_per_iteration *= h;
  p.tokens_per_iteration *= h;
  p.model_flops_per_iteration *= h;
  return p;
}

}  // namespace geotrain
