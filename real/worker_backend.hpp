#pragma once
// Which collective backend the workers of `geotrain real run` use, and what that adds to each
// worker's launch: gloo (the default; CPU tensors, what the emulator runs) or nccl (GPUs).
//
// nccl needs a LibTorch with CUDA. Whether the LibTorch found at build time has it comes from
// CMake (Torch's CAFFE2_USE_CUDA / TORCH_CUDA_LIBRARIES -> GEOTRAIN_TORCH_CUDA), so a build
// without it refuses `--backend nccl` before anything starts. With nccl each worker gets
//   NCCL_SOCKET_IFNAME=<the host's interface>  (NCCL's traffic over the shaped interface)
//   NCCL_IB_DISABLE=1                          (no InfiniBand/RoCE path around the shaping)
// and the flags `--backend nccl --cuda-device <local index>`, the local index being the rank's
// position among the ranks of its host (0, 1, ... in Program rank order).
#include <string>

#include "real/real_plan.hpp"

namespace geotrain::real {

enum class WorkerBackend { gloo, nccl };

// "gloo" / "nccl"; parse throws InputError for anything else.
std::string backend_name(WorkerBackend b);
WorkerBackend parse_backend(const std::string& text);

// Whether this build's LibTorch has CUDA (a compile definition from CMake).
bool torch_has_cuda();

// Throws InputError ("--backend nccl: ...", one line) when `b` cannot run with a LibTorch that
// has CUDA = has_cuda.
void require_backend(WorkerBackend b, bool has_cuda);

// Adds the backend's environment and flags to every worker launch of the plan (gloo: nothing).
void apply_backend(RealPlan& plan, WorkerBackend b);

}  // namespace geotrain::real
