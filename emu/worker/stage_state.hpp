#pragma once
// What one rank trains: its stage of the model, the optimizer over it, and the state the
// Program's strategies keep across ops — DiLoCo's round-start weights and outer momentum, the
// HetPipe server's pushed gradients. Everything here is local: no communication.
#include <deque>
#include <memory>
#include <string>

#include <torch/torch.h>

#include "emu/worker/gpt_stage.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/worker_job.hpp"

namespace geotrain {

class StageState {
 public:
  StageState(const WorkerJob& job, const RankPlan& plan, int rank, std::uint64_t seed,
             const torch::Device& device);

  GptStage& model() { return stage_; }
  std::int64_t parameter_count() const { return stage_.parameter_count(); }
  torch::Tensor& flat_grad() { return stage_.flat_grad(); }
  torch::Tensor flat_weights();
  void set_weights(const torch::Tensor& flat);  // fp32, parameter_count() elements
  // Elements [offset, offset + values.numel()) of the flat weights (GptStage::flat_range).
  torch::Tensor weights_slice(std::int64_t offset, std::int64_t elements);
  void set_weights_slice(std::int64_t offset, const torch::Tensor& values);

  // The optimizer op: with pushed gradients waiting (HetPipe's server), the oldest replaces the
  // stage's own; one optimizer step; the flat gradient zeroed.
  void optimizer_step();
  void push_gradients(const torch::Tensor& flat) { pushed_.push_back(flat.to(device_, torch::kFloat32)); }

  // DiLoCo: one outer round per iteration. begin_round() remembers the weights;
  // pseudo_gradient() puts (round start - now) into the flat gradient, where the averaging op
  // takes it; outer_step() applies Nesterov SGD to the averaged pseudo-gradient.
  void begin_round() { round_start_ = flat_weights(); }
  void pseudo_gradient();
  void outer_step();

  // DiLoCo churn (hivemind's load_state_from_peers): fp32 weights then outer momentum; loading
  // also restarts the round from the loaded weights.
  torch::Tensor training_state();
  void load_training_state(const torch::Tensor& state);

  // FNV-1a of the weights as fp32 bytes: replicas that must agree can be compared across workers.
  std::string weights_fingerprint();

 private:
  const WorkerJob& job_;
  int rank_;
  torch::Device device_;
  GptStage stage_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  std::deque<torch::Tensor> pushed_;  // HetPipe server: received gradients, in Wait order
  torch::Tensor round_start_, outer_momentum_;
};

}  // namespace geotrain
