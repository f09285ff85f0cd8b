#pragma once
// What the worker asks of CUDA beyond LibTorch's device-neutral API, declared without any CUDA
// header: cuda_runtime.cpp (compiled only when the LibTorch has CUDA) defines it with the CUDA
// runtime; ../no_cuda.cpp defines it for CPU-only builds, where nothing here is ever reached
// (device_count() is 0 there, and the worker refuses --device cuda before asking).
#include <cstdint>
#include <string>

namespace geotrain::cuda_rt {

bool built();  // this worker was compiled against a LibTorch with CUDA
int device_count();
// Waits until the work this thread queued on `device` (its current stream) has finished: a
// Compute op's time is GPU time, not the time it took to queue kernels.
void synchronize_stream(int device);
struct MemoryInfo {
  std::int64_t free_bytes = 0;
  std::int64_t total_bytes = 0;
};
MemoryInfo memory(int device);
std::string device_name(int device);
std::string runtime_version();  // "13.0", the CUDA this LibTorch was built with

}  // namespace geotrain::cuda_rt
