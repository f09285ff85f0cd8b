#pragma once
// The one warm-up exchange before step 0 (README: "Before step 0 the worker warms every
// connection"), shared by the Send/Recv pairs (TransferOps) and the dynamic groups (DynamicOps).
#include <chrono>
#include <map>

#include <torch/torch.h>

#include "emu/worker/comm_group.hpp"

namespace geotrain {

// Warm-up exchanges stop at this size: enough to open the congestion window to the bandwidth-
// delay product of any scaled link here (25 Mbit/s x 0.5 s RTT = 1.6 MB) without spending
// minutes on a large model.
inline constexpr double kWarmUpMaxBytes = 16.0 * 1024 * 1024;

// Receives a buffer of recv_bytes[peer] from each peer and sends one of send_bytes[peer] to each
// (peers are positions in pg; sizes capped at kWarmUpMaxBytes, empty ones skipped), all receives
// posted before any send (one group call on NCCL), in buffers on `device` (the wire's); returns
// when every transfer has completed.
void warm_up_exchange(compat::CommGroup& pg, Transport transport, const torch::Device& device,
                      const std::map<int, double>& recv_bytes, const std::map<int, double>& send_bytes,
                      int tag, std::chrono::milliseconds timeout);

}  // namespace geotrain
