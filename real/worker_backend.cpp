#include "real/worker_backend.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "emu/worker/nccl_environment.hpp"
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

WorkerBackend resolve_backend(const std::string& text, const std::string& collectives) {
  if (text.empty()) return collectives == "nccl" ? WorkerBackend::nccl : WorkerBackend::gloo;
  const WorkerBackend b = parse_backend(text);
  if (b == WorkerBackend::gloo && collectives == "nccl")
    throw InputError("--backend gloo: the run's emulation.collectives is nccl (expected --backend nccl, or "
                     "--collectives p2p or gloo)");
  return b;
}

void apply_backend(RealPlan& plan, WorkerBackend b) {
  plan.backend = backend_name(b);
  if (b != WorkerBackend::nccl) return;
  std::vector<std::string> not_cuda;
  for (const auto& host : plan.hosts)
    if (host.host.device != "cuda")
      not_cuda.push_back(fmt::format("'{}' (line {}) has device {}", host.host.name, host.host.line, host.host.device));
  if (!not_cuda.empty())
    throw InputError(fmt::format("--backend nccl: {}: host {} (expected device: cuda on every host: NCCL runs "
                                 "on GPUs; or --backend gloo)", plan.hosts_path, fmt::join(not_cuda, ", host ")));
  for (auto& host : plan.hosts) {
    int local = 0;
    for (auto& w : host.workers) {
      // A host of its own per machine: its ranks share no GPU with another host's.
      for (auto& kv : nccl_environment(host.host.interface, w.rank, /*ranks_share_a_gpu=*/false))
        w.env.push_back(std::move(kv));
      w.argv.insert(w.argv.end(), {"--backend", "nccl", "--cuda-device", std::to_string(local++)});
    }
  }
}

}  // namespace geotrain::real
