#pragma once
// How much GPU memory one rank's stage needs, estimated before anything is allocated, so a stage
// that cannot fit is refused with both figures instead of dying in the middle of step 0 with an
// out-of-memory error. Torch-free (unit-tested in tests/worker).
//
// The worker trains in fp32 (gpt_stage.hpp). Per parameter: the weight, its gradient (one flat
// buffer), Adam/AdamW's two moments (SGD none), and DiLoCo's round-start copy and outer momentum.
// Activations kept for backward, per sequence and block (fp32 values): the block input, two
// layer-norm outputs, q/k/v, attention output, projection, residual, the MLP's two 4d tensors
// and its output, about 17 S d, plus the attention scores, mask fill and softmax, 3 H S^2;
// the last stage adds the logits and their gradient, 2 S V; the first the embedding output.
// A rank keeps the activations of all its micro-batches of a pass (GPipe's schedule, the worst
// case). Each process also holds a CUDA context and NCCL's buffers: kProcessOverheadBytes.
#include <cstdint>
#include <string>

#include "emu/worker/rank_plan.hpp"
#include "emu/worker/worker_job.hpp"

namespace geotrain {

inline constexpr double kProcessOverheadBytes = 768.0 * 1024 * 1024;

struct StageMemory {
  double weights = 0, gradients = 0, optimizer = 0, outer = 0, activations = 0, overhead = 0;
  double total() const { return weights + gradients + optimizer + outer + activations + overhead; }
};

StageMemory estimate_stage_memory(const WorkerJob& job, const RankPlan& plan);

// "" if the stage fits in free_bytes / ranks_sharing (the ranks on one GPU each get a share),
// else the one-line refusal with both figures in GiB and what the estimate is made of.
std::string stage_fit_problem(const StageMemory& need, double free_bytes, int ranks_sharing,
                              const std::string& device);

}  // namespace geotrain
