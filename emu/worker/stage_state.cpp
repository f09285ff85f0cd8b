#include "emu/worker/stage_state.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"

namespace geotrain {

namespace {

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const WorkerJob& job,
                                                        std::vector<torch::Tensor> params) {
  switch (job.optimizer) {
    case Optimizer::sgd:
      return std::make_unique<torch::optim::SGD>(params, torch::optim::SGDOptions(job.learning_rate));
    case Optimizer::adam:
      return std::make_unique<torch::optim::Adam>(params, torch::optim::AdamOptions(job.learning_rate));
    case Optimizer::adamw:
      return std::make_unique<torch::optim::AdamW>(params, torch::optim::AdamWOptions(job.learning_rate));
  }
  throw InputError("unknown optimizer");
}

}  // namespace

StageState::StageState(const WorkerJob& job, const RankPlan& plan, int rank, std::uint64_t seed,
                       const torch::Device& device)
    : job_(job),
      rank_(rank),
      device_(device),
      stage_(job.model, plan.layer_begin, plan.layer_end, job.tie_embeddings, seed, device),
      optimizer_(make_optimizer(job, stage_.parameters())) {}

torch::Tensor StageState::flat_weights() {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> parts;
  for (const auto& p : stage_.parameters()) parts.push_back(p.detach().reshape(-1));
  return torch::cat(parts);
}

void StageState::set_weights(const torch::Tensor& flat) {
  torch::NoGradGuard no_grad;
  if (flat.numel() != stage_.parameter_count())
    throw Error(fmt::format("rank {}: {} weights for a stage of {} parameters", rank_, flat.numel(),
                            stage_.parameter_count()));
  set_weights_slice(0, flat);
}

// Visits the parameters that overlap [offset, offset + elements): f(parameter's flat view, its
// first element inside the range, the range's element there, how many).
namespace {
template <typename F>
void for_slice(std::vector<torch::Tensor>& params, std::int64_t offset, std::int64_t elements, F f) {
  std::int64_t at = 0;
  for (auto& p : params) {
    const std::int64_t n = p.numel();
    const std::int64_t lo = std::max(offset, at), hi = std::min(offset + elements, at + n);
    if (lo < hi) f(p.detach().view(-1), lo - at, lo - offset, hi - lo);
    at += n;
  }
}
}  // namespace

torch::Tensor StageState::weights_slice(std::int64_t offset, std::int64_t elements) {
  torch::NoGradGuard no_grad;
  auto out = torch::empty({elements}, torch::TensorOptions().device(device_));
  for_slice(stage_.parameters(), offset, elements, [&](torch::Tensor flat, std::int64_t from, std::int64_t to, std::int64_t n) {
    out.narrow(0, to, n).copy_(flat.narrow(0, from, n));
  });
  return out;
}

void StageState::set_weights_slice(std::int64_t offset, const torch::Tensor& values) {
  torch::NoGradGuard no_grad;
  if (offset < 0 || offset + values.numel() > stage_.parameter_count())
    throw Error(fmt::format("rank {}: weights [{}, {}) outside a stage of {} parameters", rank_, offset,
                            offset + values.numel(), stage_.parameter_count()));
  for_slice(stage_.parameters(), offset, values.numel(), [&](torch::Tensor flat, std::int64_t from, std::int64_t to, std::int64_t n) {
    flat.narrow(0, from, n).copy_(values.narrow(0, to, n));
  });
}

void StageState::optimizer_step() {
  if (!pushed_.empty()) {
    stage_.flat_grad().copy_(pushed_.front());
    pushed_.pop_front();
  }
  optimizer_->step();
  stage_.flat_grad().zero_();
}

void StageState::pseudo_gradient() { stage_.flat_grad().copy_(round_start_ - flat_weights()); }

// Nesterov SGD (torch.optim.SGD(nesterov=True), dampening 0) on the averaged pseudo-gradient g,
// applied to the round's starting weights:  b = mu b + g;  w = w_start - lr (g + mu b).
void StageState::outer_step() {
  torch::NoGradGuard no_grad;
  auto& g = stage_.flat_grad();
  if (!outer_momentum_.defined()) outer_momentum_ = torch::zeros_like(g);
  outer_momentum_.mul_(job_.outer_momentum).add_(g);
  set_weights(round_start_ - job_.outer_lr * (g + job_.outer_momentum * outer_momentum_));
  g.zero_();
}

torch::Tensor StageState::training_state() {
  torch::NoGradGuard no_grad;
  auto weights = flat_weights().to(torch::kFloat32);  // on the stage's device
  auto momentum = outer_momentum_.defined() ? outer_momentum_.to(torch::kFloat32) : torch::zeros_like(weights);
  return torch::cat({weights, momentum}).contiguous();
}

void StageState::load_training_state(const torch::Tensor& state) {
  torch::NoGradGuard no_grad;
  const std::int64_t n = stage_.parameter_count();
  set_weights(state.narrow(0, 0, n));
  outer_momentum_ = state.narrow(0, n, n).to(device_).clone();
  round_start_ = flat_weights();  // the pseudo-gradient of this round starts from them
}

std::string StageState::weights_fingerprint() {
  const auto w = flat_weights().to(torch::kCPU, torch::kFloat32).contiguous();
  const auto* bytes = static_cast<const unsigned char*>(w.data_ptr());
  std::uint64_t h = 14695981039346656037ull;
  for (std::size_t i = 0; i < w.nbytes(); ++i) h = (h ^ bytes[i]) * 1099511628211ull;
  return fmt::format("{:016x}", h);
}

}  // namespace geotrain
