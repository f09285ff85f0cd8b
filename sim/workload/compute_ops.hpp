#pragma once
// The Compute ops strategies put in Programs, sized from the model arithmetic (model_spec.hpp).
// One place decides what a forward, backward or optimizer op costs in flop and bytes, so every
// strategy and the measured-profile fallback (compute_model.cpp) agree.
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

// Forward of `sequences` sequences through layers [layer_begin, layer_end).
// flops = stage_forward_flops_per_sequence x sequences; memory_bytes = the stage's parameters
// in the model dtype (weights read once per micro-batch).
ComputeOp forward_op(const ModelSpec& m, int stage, int micro_batch, int layer_begin, int layer_end,
                     double sequences);
// Backward = 2 x forward flop (activation and weight gradients), same bytes.
ComputeOp backward_op(const ModelSpec& m, int stage, int micro_batch, int layer_begin,
                      int layer_end, double sequences);

// The optimizer step over the stage's parameters (fp32 master weights). Model: element-wise
// work, so it is memory-bound on every device we know: memory_bytes = parameters x bytes moved
// per parameter (optimizer_bytes_per_param), flops = parameters x optimizer_flops_per_param.
// ComputeModel turns that into max(bytes / memory bandwidth, flops / fp32 rate).
ComputeOp optimizer_op(const ModelSpec& m, Optimizer opt, int stage, int layer_begin,
                       int layer_end);
// SGD reads weight + gradient and writes the weight (12 B); Adam/AdamW also read and write two
// moments (28 B).
double optimizer_bytes_per_param(Optimizer opt);
// SGD: one multiply-add (2); Adam: two moment updates, a square root, a division and the
// update (~12); AdamW adds the decoupled weight decay (~14).
double optimizer_flops_per_param(Optimizer opt);

}  // namespace geotrain
