// Built instead of cuda/*.cpp when the LibTorch has no CUDA (Debian's 1.13): the worker then
// refuses --device cuda and --backend nccl by name (worker_main.cpp, compute_device.cpp) before
// anything here could be reached.
#include "emu/worker/comm_group.hpp"
#include "emu/worker/cuda/cuda_runtime.hpp"
#include "sim/common/error.hpp"

namespace geotrain {

bool nccl_built() { return false; }

CommGroupPtr make_nccl_group(const c10::intrusive_ptr<c10d::Store>&, int, int, const CommGroupOptions&) {
  throw InputError("--backend nccl: this geotrain-worker was built with a LibTorch without CUDA (build it "
                   "against PyTorch's LibTorch with CUDA: docs/gpu.md)");
}

namespace cuda_rt {

namespace {

[[noreturn]] void no_cuda() {
  throw InputError("this geotrain-worker was built with a LibTorch without CUDA (docs/gpu.md)");
}

}  // namespace

bool built() { return false; }
int device_count() { return 0; }
void synchronize_stream(int) { no_cuda(); }
MemoryInfo memory(int) { no_cuda(); }
std::string device_name(int) { no_cuda(); }
std::string runtime_version() { return ""; }

}  // namespace cuda_rt

}  // namespace geotrain
