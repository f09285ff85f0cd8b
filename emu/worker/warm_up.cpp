#include "emu/worker/warm_up.hpp"

#include <algorithm>
#include <cstdint>

#include <torch/torch.h>

namespace geotrain {

void warm_up_exchange(compat::CommGroup& pg, Transport transport, const torch::Device& device,
                      const std::map<int, double>& recv_bytes, const std::map<int, double>& send_bytes,
                      int tag, std::chrono::milliseconds timeout) {
  const auto elements = [](double bytes) {
    return static_cast<std::int64_t>(std::min(bytes, kWarmUpMaxBytes) / sizeof(float));
  };
  const auto on = torch::TensorOptions().dtype(torch::kFloat32).device(device);
  P2PBatch batch(pg, transport);  // holds the buffers until every transfer has completed
  // Receives first, as everywhere in the worker (README: a peer sends once it has our notice).
  for (const auto& [peer, bytes] : recv_bytes)
    if (elements(bytes) > 0) batch.recv(torch::empty({elements(bytes)}, on), peer, tag);
  for (const auto& [peer, bytes] : send_bytes)
    if (elements(bytes) > 0) batch.send(torch::zeros({elements(bytes)}, on), peer, tag);
  batch.wait(timeout);
}

}  // namespace geotrain
