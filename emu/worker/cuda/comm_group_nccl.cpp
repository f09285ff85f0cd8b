// NCCL process groups (CUDA tensors). CUDA-only: compiled when the LibTorch found at build time
// has CUDA, with USE_C10D_NCCL defined (emu/worker/CMakeLists.txt); ../no_cuda.cpp otherwise.
#include <cstdlib>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>

#include "emu/worker/comm_group.hpp"

namespace geotrain {

bool nccl_built() { return true; }

CommGroupPtr make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                             const CommGroupOptions& o) {
  // Work::wait() then blocks this thread until the transfer has finished on the GPU, so an op's
  // end time (ops.csv) is when its bytes arrived, as for Gloo. Without it wait() only orders the
  // calling thread's stream after NCCL's and returns at once. Read when the group is built.
  ::setenv("TORCH_NCCL_BLOCKING_WAIT", "1", 1);
  ::setenv("NCCL_BLOCKING_WAIT", "1", 1);  // the same switch's name before PyTorch 2.2
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = o.timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, size, opts);
}

}  // namespace geotrain
