// Built instead of comm_group_gloo.cpp when the Gloo headers are not found (PyTorch's Python
// package may ship its LibTorch without them): Gloo is then refused by name, NCCL still runs.
#include "emu/worker/comm_group.hpp"
#include "sim/common/error.hpp"

namespace geotrain {

bool gloo_built() { return false; }

CommGroupPtr make_gloo_group(const c10::intrusive_ptr<c10d::Store>&, int, int, const CommGroupOptions&) {
  throw InputError("--backend gloo: this geotrain-worker was built without the Gloo headers (give CMake "
                   "GEOTRAIN_GLOO_INCLUDE_DIR, or run --backend nccl)");
}

}  // namespace geotrain
