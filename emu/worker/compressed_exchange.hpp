#pragma once
// The worker's side of a compressed exchange (docs/compression.md): the three ops a strategy
// writes for it (sim/strategies/compressed_exchange.hpp), with real tensors.
//  encode (the "compress <kind>" op, on the rank's thread): an fp32 working copy of the buffer;
//    int8/fp4 quantize the chunk this rank sends first; topk adds the residual kept from earlier
//    exchanges, selects its k largest |values| into this rank's message and keeps the rest as
//    the new residual (error feedback);
//  exchange (the collective, on the group's thread): int8/fp4 a ring all-reduce whose
//    reduce-scatter hops dequantize the incoming chunk, add this rank's own values and requantize
//    before forwarding, and whose all-gather forwards the final quantized chunks unchanged; topk
//    a ring all-gather of every member's message. Bytes are counted from the tensors sent;
//  decode (the "decompress <kind>" op): every member's identical sum, divided by the group size.
// The codec arithmetic is sim/program/compression_codec.hpp, the wire sizes compression.hpp.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "emu/worker/cluster.hpp"

namespace geotrain {

// One exchange's state, from its encoder to its decoder: the caller keeps one per collective op
// in flight (Streaming DiLoCo overlaps several), and top-k's residuals apart, per buffer.
class CompressedExchange {
 public:
  // `buffer`: the op's elements (any dtype or device); `residual`: top-k's error feedback for
  // this buffer, kept by the caller across iterations (read and replaced here).
  void encode(const CollectiveOp& op, int group_size, int position, const torch::Tensor& buffer,
              torch::Tensor& residual);
  // Returns the bytes this rank sent. `wire`: where tensors handed to the process group live.
  double exchange(Cluster& cluster, const Program& program, const CollectiveOp& op, int group_size,
                  int position, const torch::Device& wire);
  // The average, fp32 on the CPU.
  torch::Tensor decode(const CollectiveOp& op, int group_size);
  // geotrain profile, which times the codec ops without a cluster: what an exchange after
  // encode() would leave (every chunk quantized from this rank's values; every member's message
  // this rank's), so that decode() does its whole work.
  void stand_in_for_exchange(const CollectiveOp& op, int group_size);

 private:
  double quantized_ring(Cluster& cluster, const CollectiveOp& op, int n, int p, const torch::Device& wire);
  void quantize_into(const CollectiveOp& op, int n, int q);

  int position_ = 0;                            // this rank's, at encode()
  torch::Tensor work_;                          // fp32 CPU: this rank's values, then ring sums
  std::vector<std::vector<std::uint8_t>> chunks_;  // int8/fp4: chunk q's quantized bytes
  torch::Tensor gathered_;                      // topk: uint8, the members' messages in order
};

}  // namespace geotrain
