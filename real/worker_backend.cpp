#include "real/worker_backend.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"

#ifndef GEOTRAIN_TORCH_CUDA
#error "GEOTRAIN_TORCH_CUDA (0 or 1) comes from real/CMakeLists.txt"
#endif

namespace geotrain::real {

std::string backend_name(WorkerBackend b) { return b == WorkerBackend::nccl ? "nccl" : "gloo"; }

WorkerBackend parse_backend(const std::string& text) {
  if (text == "gloo") return WorkerBackend::gloo;
  if (text == "nccl") return WorkerBackend::nccl;
  throw InputError(fmt::format("--backend: '{}' (expected gloo or nccl)", text));
}

bool torch_has_cuda() { return GEOTRAIN_TORCH_CUDA != 0; }

void require_backend(WorkerBackend b, bool has_cuda) {
  if (b == WorkerBackend::nccl && !has_cuda)
    throw InputError("--backend nccl: this geotrain was built with a LibTorch without CUDA (NCCL needs a "
                     "CUDA LibTorch at build time; expected --backend gloo)");
}

void apply_backend(RealPlan& plan, WorkerBackend b) {
  if (b != WorkerBackend::nccl) return;
  for (auto& host : plan.hosts) {
    int local = 0;
    for (auto& w : host.workers) {
      w.env.emplace_back("NCCL_SOCKET_IFNAME", host.host.interface);
      w.env.emplace_back("NCCL_IB_DISABLE", "1");
      w.argv.insert(w.argv.end(), {"--backend", "nccl", "--cuda-device", std::to_string(local++)});
    }
  }
}

}  // namespace geotrain::real
