#include "emu/worker/compute_device.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include <torch/version.h>

#include "emu/worker/cuda/cuda_runtime.hpp"
#include "sim/common/error.hpp"

namespace geotrain {

ComputeDevice::ComputeDevice(const std::string& kind, int cuda_index, Transport transport, int rank) {
  if (kind != "cpu" && kind != "cuda")
    throw InputError(fmt::format("--device: '{}' (expected cpu or cuda)", kind));
  if (kind == "cpu") {
    if (transport == Transport::nccl)
      throw InputError("--backend nccl: NCCL moves CUDA tensors (expected --device cuda, or --backend gloo)");
    return;
  }
  if (!cuda_rt::built())
    throw InputError(fmt::format("--device cuda: this geotrain-worker was built with LibTorch {} without CUDA "
                                 "(build it against PyTorch's LibTorch with CUDA: docs/gpu.md)",
                                 TORCH_VERSION));
  const int gpus = cuda_rt::device_count();
  if (gpus == 0) {
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    throw InputError(fmt::format("--device cuda: no GPU visible to this process (CUDA_VISIBLE_DEVICES={})",
                                 visible ? visible : "unset"));
  }
  const int index = cuda_index >= 0 ? cuda_index : rank % gpus;
  if (index >= gpus)
    throw InputError(fmt::format("--cuda-device {}: this process sees {} GPU(s) (expected 0 ... {})", index,
                                 gpus, gpus - 1));
  compute_ = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
  if (transport == Transport::nccl) wire_ = compute_;
}

void ComputeDevice::synchronize() const {
  if (cuda()) cuda_rt::synchronize_stream(compute_.index());
}

std::string ComputeDevice::describe() const {
  if (!cuda()) return "cpu";
  return fmt::format("{} ({})", compute_.str(), cuda_rt::device_name(compute_.index()));
}

}  // namespace geotrain
