// `geotrain-worker --capabilities`: what this worker can run, as one JSON line, so geotrain can
// refuse a CUDA or NCCL run before it builds anything (emu/launch/worker_capabilities.hpp).
#include <torch/torch.h>
#include <torch/version.h>

#include <nlohmann/json.hpp>

#include "emu/worker/comm_group.hpp"
#include "emu/worker/cuda/cuda_runtime.hpp"
#include "emu/worker/worker.hpp"

namespace geotrain {

std::string worker_capabilities_json() {
  nlohmann::ordered_json gpus = nlohmann::ordered_json::array();
  const int count = cuda_rt::built() ? cuda_rt::device_count() : 0;
  for (int i = 0; i < count; ++i) {
    const auto mem = cuda_rt::memory(i);
    gpus.push_back({{"index", i}, {"name", cuda_rt::device_name(i)}, {"total_bytes", mem.total_bytes},
                    {"free_bytes", mem.free_bytes}});
  }
  const nlohmann::ordered_json j = {{"format", "geotrain-worker-capabilities"},
                                    {"version", 1},
                                    {"torch", TORCH_VERSION},
                                    {"cuda", cuda_rt::built()},
                                    {"cuda_runtime", cuda_rt::runtime_version()},
                                    {"nccl", nccl_built()},
                                    {"gloo", gloo_built()},
                                    {"cuda_devices", count},
                                    {"gpus", gpus}};
  return j.dump();
}

}  // namespace geotrain
