#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

ComputeOp pass_op(const ModelSpec& m, ComputeKind kind, int stage, int micro_batch, int layer_begin,
                  int layer_end, double sequences, double flop_factor) {
  ComputeOp op;
  op.kind = kind;
  op.stage = stage;
  op.micro_batch = micro_batch;
  op.layer_begin = layer_begin;
  op.layer_end = layer_end;
  op.sequences = sequences;
  op.flops = flop_factor * stage_forward_flops_per_sequence(m, layer_begin, layer_end) * sequences;
  op.memory_bytes =
      stage_params(m, layer_begin, layer_end) * static_cast<double>(dtype_bytes(m.dtype));
  return op;
}

}  // namespace

ComputeOp forward_op(const ModelSpec& m, int stage, int micro_batch, int layer_begin, int layer_end,
                     double sequences) {
  return pass_op(m, ComputeKind::forward, stage, micro_batch, layer_begin, layer_end, sequences, 1);
}

ComputeOp backward_op(const ModelSpec& m, int stage, int micro_batch, int layer_begin,
                      int layer_end, double sequences) {
  return pass_op(m, ComputeKind::backward, stage, micro_batch, layer_begin, layer_end, sequences,
                 2);
}

double optimizer_bytes_per_param(Optimizer opt) {
  return opt == Optimizer::sgd ? 12 : 28;
}

double optimizer_flops_per_param(Optimizer opt) {
  switch (opt) {
    case Optimizer::sgd:
      return 2;
    case Optimizer::adam:
      return 12;
    case Optimizer::adamw:
      return 14;
  }
  return 12;
}

ComputeOp optimizer_op(const ModelSpec& m, Optimizer opt, int stage, int layer_begin,
                       int layer_end) {
  ComputeOp op;
  op.kind = ComputeKind::optimizer;
  op.stage = stage;
  op.micro_batch = -1;
  op.layer_begin = layer_begin;
  op.layer_end = layer_end;
  const double params = stage_params(m, layer_begin, layer_end);
  op.flops = params * optimizer_flops_per_param(opt);
  op.memory_bytes = params * optimizer_bytes_per_param(opt);
  return op;
}

}  // namespace geotrain
