// CUDA-only (see cuda_runtime.hpp). Compiled when the LibTorch found at build time has CUDA.
#include "emu/worker/cuda/cuda_runtime.hpp"

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "sim/common/error.hpp"

namespace geotrain::cuda_rt {

bool built() { return true; }

int device_count() { return static_cast<int>(c10::cuda::device_count()); }

void synchronize_stream(int device) {
  c10::cuda::getCurrentCUDAStream(static_cast<c10::DeviceIndex>(device)).synchronize();
}

MemoryInfo memory(int device) {
  const c10::cuda::CUDAGuard guard(static_cast<c10::DeviceIndex>(device));
  std::size_t free = 0, total = 0;
  if (const auto err = cudaMemGetInfo(&free, &total); err != cudaSuccess)
    throw Error(fmt::format("cuda:{}: cudaMemGetInfo: {}", device, cudaGetErrorString(err)));
  return {static_cast<std::int64_t>(free), static_cast<std::int64_t>(total)};
}

std::string device_name(int device) {
  return at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(device))->name;
}

std::string runtime_version() {
  int v = 0;
  cudaRuntimeGetVersion(&v);
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

}  // namespace geotrain::cuda_rt
