#pragma once
// The ops that move the Program's bytes between ranks: Send and Recv (activations, their
// gradients, HetPipe's pushed gradients and pulled weights, DiLoCo's rejoining state) and
// Collectives (gradient slices, DiLoCo's pseudo-gradient, Local SGD's weights). Each posts its
// transfer and returns it as a PendingOp; what arrives is put in place when the op completes.
#include <functional>
#include <map>
#include <memory>

#include "emu/worker/compressed_exchange.hpp"
#include "emu/worker/micro_batch_tensors.hpp"
#include "emu/worker/pending_ops.hpp"
#include "emu/worker/rank_context.hpp"
#include "emu/worker/serial_executor.hpp"
#include "emu/worker/stage_state.hpp"

namespace geotrain {

class TransferOps {
 public:
  TransferOps(RankContext& ctx, StageState& state, MicroBatchTensors& tensors);

  // Before the first step: one exchange of the largest Send/Recv size with every peer this
  // rank's Program sends to or receives from (transfer_ops.cpp says why).
  void warm_up_pairs();

  PendingOp send(int i, const SendOp& s);
  PendingOp recv(int i, const RecvOp& r);
  PendingOp collective(int i, const CollectiveOp& c);
  // Averages `buffer`, a tensor of the caller's (a Streaming DiLoCo fragment's pseudo-gradient,
  // fragment_outer_state.hpp), in place: the gradient cursor is not involved.
  PendingOp collective_on(int i, const CollectiveOp& c, torch::Tensor buffer);
  // A compressed collective's codec ops (compressed_exchange.hpp): `i` is the collective's index.
  void encode(int i);
  void decode(int i);
  // The same for a collective that averages a buffer of the caller's (collective_on); top-k's
  // residual is kept under `residual_at` (the fragment's offset).
  void encode(int i, const torch::Tensor& buffer, std::int64_t residual_at);
  void decode(int i, torch::Tensor buffer);

  // Gradient collectives take consecutive slices of the stage's flat gradient; the cursor is
  // where the next one starts (back to 0 at each step and after DiLoCo's outer step).
  std::int64_t gradient_cursor() const { return grad_cursor_; }
  void reset_gradient_cursor() { grad_cursor_ = 0; }

 private:
  PendingOp weights_collective(int i, const CollectiveOp& c);
  // Reduces `slice` (fp32, on the compute device) on the group's thread, through a copy in the
  // wire dtype / on the wire device when they differ.
  PendingOp reduce_slice(const CollectiveOp& c, torch::Tensor slice);
  // `cursor`: the op takes its elements at the gradient cursor (not a caller's buffer).
  PendingOp compressed_collective(int i, const CollectiveOp& c, bool cursor = true);
  // The elements a compressed collective averages: a slice of the flat gradient at the cursor
  // (gradients, pseudo-gradient) or the stage's weights.
  torch::Tensor compressed_buffer(int i, const CollectiveOp& c);
  // The group's thread runs `transfer` (which returns the bytes it sent) after the group's
  // earlier collectives; the op ends when it returns.
  PendingOp on_group_thread(GroupId group, std::function<double()> transfer);

  RankContext& ctx_;
  StageState& state_;
  MicroBatchTensors& tensors_;
  std::map<GroupId, std::unique_ptr<SerialExecutor>> executors_;  // one thread per group
  std::int64_t grad_cursor_ = 0;
  // Compressed exchanges by collective op index: one per op, so that overlapped ones (Streaming
  // DiLoCo) never share state. Entries are added on the rank's thread (encode); the group's
  // thread uses only the entry its op was handed.
  std::map<int, CompressedExchange> exchanges_;
  // top-k's error feedback per buffer (payload, first element): DiLoCo's per-membership averages
  // of the same pseudo-gradient share one.
  std::map<std::pair<int, std::int64_t>, torch::Tensor> residuals_;
};

}  // namespace geotrain
