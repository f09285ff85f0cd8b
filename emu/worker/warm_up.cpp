#include "emu/worker/warm_up.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include <torch/torch.h>

namespace geotrain {

void warm_up_exchange(c10d::ProcessGroupGloo& pg, const std::map<int, double>& recv_bytes,
                      const std::map<int, double>& send_bytes, int tag, std::chrono::milliseconds timeout) {
  const auto elements = [](double bytes) {
    return static_cast<std::int64_t>(std::min(bytes, kWarmUpMaxBytes) / sizeof(float));
  };
  std::vector<torch::Tensor> buffers;  // alive until every transfer has completed
  std::vector<c10::intrusive_ptr<c10d::Work>> works;
  // Receives first, as everywhere in the worker (README: a peer sends once it has our notice).
  for (const auto& [peer, bytes] : recv_bytes) {
    if (elements(bytes) == 0) continue;
    std::vector<torch::Tensor> in{torch::empty({elements(bytes)})};
    works.push_back(pg.recv(in, peer, tag));
    buffers.push_back(in[0]);
  }
  for (const auto& [peer, bytes] : send_bytes) {
    if (elements(bytes) == 0) continue;
    std::vector<torch::Tensor> out{torch::zeros({elements(bytes)})};
    works.push_back(pg.send(out, peer, tag));
    buffers.push_back(out[0]);
  }
  for (auto& w : works) w->wait(timeout);
}

}  // namespace geotrain
