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
  // A compressed collective's codec ops (compressed_exchange.hpp): `i` is the collective's index.
  void encode(int i);
  void decode(int i);

  // Gradient collectives take consecutive slices of the stage's flat gradient; the cursor is
  // where the next one starts (back to 0 at each step and after DiLoCo's outer step).
  std::int64_t gradient_cursor() const { return grad_cursor_; }
  void reset_gradient_cursor() { grad_cursor_ = 0; }

 private:
  PendingOp weights_collective(int i, const CollectiveOp& c);
  PendingOp compressed_collective(int i, const CollectiveOp& c);
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
  CompressedExchange exchange_;
};

}  // namespace geotrain
