#pragma once
// The small pieces the strategy files share (strategy_common.cpp). Each strategy file defines its
// builder and registers it (strategy_registry.hpp); every builder returns a Program for ONE
// iteration, build_program validates it.
#include <string>
#include <vector>

#include "sim/program/assignment.hpp"
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/strategy_catalog.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace geotrain {

// Bytes DiLoCo's pseudo-gradient averaging moves per rank buffer (parameters x wire dtype).
double diloco_wire_bytes(const Scenario& s);
// Bytes a rejoining DiLoCo worker loads from its peer: fp32 weights + outer momentum.
double diloco_state_bytes(const Scenario& s);

// Cross-field checks (StrategyDecl::check). Data parallel: the global batch splits over the
// participating devices. Pipeline: stages x replicas = devices, at most one stage per layer.
void data_parallel_check(const Scenario& s, Diagnostics& diag, int line);
void pipeline_check(const Scenario& s, Diagnostics& diag, int line);
// The choices of a strategy's `algorithm` parameter; library: Gloo's own all-reduce (what
// LibTorch runs; sim/program/gloo_algorithms.hpp).
const std::vector<std::string>& collective_algorithm_names();

// How a replica's share of the global batch is cut: training.micro_batches when set, else
// ceil(share / training.micro_batch), else one micro-batch; micro-batches are equal (sequences
// may be fractional, like DT-FM's 61.04 sequences per replica).
struct MicroBatching {
  int micro_batches = 1;
  double sequences = 0;  // per micro-batch
};
MicroBatching micro_batching(const TrainingSpec& t, int replicas);

// "ring" | "tree" | "halving-doubling" | "direct" | "library" (the catalog's spellings).
CollectiveAlgorithm algorithm_named(const std::string& name);
// strategy.algorithm for all-reduces over groups of `group_size` ranks; throws InputError when
// the algorithm cannot run on that size (halving-doubling needs a power of 2).
CollectiveAlgorithm allreduce_algorithm(const Scenario& s, int group_size);

// A Program with strategy name, ranks, placement and the per-iteration throughput figures
// (the whole global batch: 3 x forward flop of the full model per sequence).
Program new_program(const Scenario& s, const std::string& strategy,
                    std::vector<int> device_of_rank);
GroupId add_group(Program& p, std::string name, std::vector<int> ranks);

Op make_op(ComputeOp body, std::string label);
Op make_op(SendOp body, std::string label, bool nonblocking);
Op make_op(RecvOp body, std::string label, bool nonblocking);
Op make_op(CollectiveOp body, std::string label, bool nonblocking = false);
Op make_wait(std::vector<int> ops, std::string label);
CollectiveOp collective(CollectiveKind kind, GroupId group, double bytes,
                        CollectiveAlgorithm algorithm, int root = 0, int tag = 0);

// Forward then backward of every micro-batch through layers [layer_begin, layer_end) (gradient
// accumulation), labelled "fwd s<stage> mb<i>" / "bwd s<stage> mb<i>"; the first `count`
// micro-batches only.
void add_forward_backward(std::vector<Op>& ops, const ModelSpec& m, const MicroBatching& mb,
                          int count, int stage, int layer_begin, int layer_end);
// H local steps of a whole-model data-parallel replica (DiLoCo's inner steps, Local SGD's
// period): per step the forward ops of every micro-batch, then their backward ops, then the
// optimizer ("fwd h<k> mb<i>", "bwd h<k> mb<i>", "optim h<k>", k from `first`).
void add_local_steps(std::vector<Op>& ops, const Scenario& s, const MicroBatching& mb, int steps,
                     int first = 0);
// The stage's optimizer step ("optim s<stage>").
Op optimizer_step(const Scenario& s, int stage, int layer_begin, int layer_end);
// An element-wise pass over `params` fp32 weights of layers [layer_begin, layer_end) costing
// `flops` and `bytes` per parameter (DiLoCo's pseudo-gradient and outer step over the whole
// model, Streaming DiLoCo's over one fragment, the merge).
Op weights_pass_op(int layer_begin, int layer_end, double params, ComputeKind kind, double flops, double bytes,
                   std::string label);
// DiLoCo's outer step parameters (diloco, streaming-diloco): outer_lr, outer_momentum, appended
// to `own`.
std::vector<ParamDecl> with_outer_step_params(std::vector<ParamDecl> own);
// Divides summed gradients by the group size: element-wise over `bytes` of gradients
// ("average ..."), flops = elements, memory = read + write.
Op averaging(const ModelSpec& m, double bytes, int stage, int layer_begin, int layer_end,
             std::string label);

// Data-parallel device list from the placement (1 x N).
std::vector<int> data_parallel_devices(const Assignment& placement);

}  // namespace geotrain
