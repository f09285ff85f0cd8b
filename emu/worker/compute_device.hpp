#pragma once
// Where a rank computes and where its transfers' buffers live. CPU: both on the CPU (Gloo).
// CUDA: the stage's weights, optimizer state, activations and gradients on cuda:<index>; the
// wire buffers there too with NCCL, on the CPU with Gloo (which moves host memory: each transfer
// is staged through a copy, and that copy is part of the op's measured time).
#include <string>

#include <torch/torch.h>

#include "emu/worker/comm_group.hpp"

namespace geotrain {

class ComputeDevice {
 public:
  // Throws InputError (exit 2) naming why: --device cuda with a LibTorch without CUDA or no
  // visible GPU, an index past the visible GPUs, NCCL on the CPU. cuda_index < 0: the rank's
  // turn among the visible GPUs (rank % GPUs), so ranks spread over a machine's GPUs.
  ComputeDevice(const std::string& kind, int cuda_index, Transport transport, int rank);

  bool cuda() const { return compute_.is_cuda(); }
  const torch::Device& compute() const { return compute_; }
  const torch::Device& wire() const { return wire_; }
  // Waits for what this thread queued on the GPU (nothing to do on the CPU).
  void synchronize() const;
  // "cpu" or "cuda:0 (NVIDIA H100 80GB HBM3)".
  std::string describe() const;

 private:
  torch::Device compute_{torch::kCPU};
  torch::Device wire_{torch::kCPU};
};

}  // namespace geotrain
