#include "emu/worker/stage_memory.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/program/program.hpp"
#include "sim/scenario/model_spec.hpp"

namespace geotrain {

namespace {

constexpr double kFloat = 4;  // the worker computes in fp32
constexpr double kGiB = 1024.0 * 1024 * 1024;

// The stage's parameters as the worker allocates them: a pipeline's last stage owns an untied LM
// head (gpt_stage.hpp), which stage_params already counts.
double parameters(const WorkerJob& job, const RankPlan& plan) {
  return stage_params(job.model, plan.layer_begin, plan.layer_end);
}

bool has_outer_step(const WorkerJob& job, int rank) {
  for (const auto& op : job.program.ranks.at(static_cast<std::size_t>(rank)))
    if (const auto* c = op.as<ComputeOp>(); c && c->kind == ComputeKind::outer_optimizer) return true;
  return false;
}

}  // namespace

StageMemory estimate_stage_memory(const WorkerJob& job, const RankPlan& plan) {
  const auto& m = job.model;
  const double p = parameters(job, plan);
  StageMemory s;
  s.weights = p * kFloat;
  s.gradients = p * kFloat;
  s.optimizer = job.optimizer == Optimizer::sgd ? 0 : 2 * p * kFloat;
  // DiLoCo: the round's starting weights and the outer momentum; Streaming DiLoCo also keeps
  // every fragment's pseudo-gradient buffer (one model's worth).
  const bool fragmented = job.program.outer_step && job.program.outer_step->fragmented;
  s.outer = has_outer_step(job, plan.rank) ? (fragmented ? 3 : 2) * p * kFloat : 0;
  const double S = m.seq_len, d = m.d_model, H = m.heads, V = m.vocab;
  double per_sequence = (plan.layer_end - plan.layer_begin) * (17 * S * d + 3 * H * S * S);
  if (plan.first_stage()) per_sequence += S * d;
  if (plan.last_stage()) per_sequence += 2 * S * V + S * d;
  double sequences = 0;
  for (const auto& mb : plan.micro_batches) sequences += mb.sequences;
  s.activations = per_sequence * sequences * kFloat;
  s.overhead = kProcessOverheadBytes;
  return s;
}

std::string stage_fit_problem(const StageMemory& need, double free_bytes, int ranks_sharing,
                              const std::string& device) {
  const double share = free_bytes / std::max(ranks_sharing, 1);
  if (need.total() <= share) return "";
  return fmt::format(
      "the stage needs about {:.2f} GiB on {} (weights {:.2f}, gradients {:.2f}, optimizer {:.2f}, outer "
      "{:.2f}, activations {:.2f}, CUDA context {:.2f}) but {:.2f} GiB are free{} (a smaller model, "
      "micro-batch or fewer ranks per GPU would fit)",
      need.total() / kGiB, device, need.weights / kGiB, need.gradients / kGiB, need.optimizer / kGiB,
      need.outer / kGiB, need.activations / kGiB, need.overhead / kGiB, share / kGiB,
      ranks_sharing > 1 ? fmt::format(" for each of the {} ranks sharing it ({:.2f} GiB in all)", ranks_sharing,
                                      free_bytes / kGiB)
                        : "");
}

}  // namespace geotrain
