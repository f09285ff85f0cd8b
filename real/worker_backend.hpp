#pragma once
// Which collective backend the workers of `geotrain real run` use, and what that adds to each
// worker's launch: gloo (the default; what the emulator runs on CPUs) or nccl (GPUs).
//
// nccl needs a LibTorch with CUDA. Whether the LibTorch found at build time has it comes from
// CMake (Torch's CAFFE2_USE_CUDA / TORCH_CUDA_LIBRARIES -> GEOTRAIN_TORCH_CUDA), so a build
// without it refuses `--backend nccl` before anything starts; so does a hosts file with a host
// whose `device` is not cuda. With nccl each worker gets NCCL's environment for a host of its
// own (emu/worker/nccl_environment.hpp: NCCL_SOCKET_IFNAME=<the host's interface>,
// NCCL_IB_DISABLE=1) and the flags `--backend nccl --cuda-device <local index>`, the local index
// being the rank's position among the ranks of its host (0, 1, ... in Program rank order).
#include <string>

#include "real/real_plan.hpp"

namespace geotrain::real {

enum class WorkerBackend { gloo, nccl };

// "gloo" / "nccl"; parse throws InputError for anything else.
std::string backend_name(WorkerBackend b);
WorkerBackend parse_backend(const std::string& text);

// The backend of a run: --backend when given (text non-empty), else nccl when the scenario's
// emulation.collectives is nccl, else gloo. Throws InputError for --backend gloo against
// collectives nccl.
WorkerBackend resolve_backend(const std::string& text, const std::string& collectives);

// Whether this build's LibTorch has CUDA (a compile definition from CMake).
bool torch_has_cuda();

// Throws InputError ("--backend nccl: ...", one line) when `b` cannot run with a LibTorch that
// has CUDA = has_cuda.
void require_backend(WorkerBackend b, bool has_cuda);

// Adds the backend's environment and flags to every worker launch of the plan (gloo: nothing
// but plan.backend). Throws InputError, one line naming the hosts, when nccl meets a host whose
// device is not cuda.
void apply_backend(RealPlan& plan, WorkerBackend b);

}  // namespace geotrain::real
