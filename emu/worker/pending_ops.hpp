#pragma once
// The rank's ops in flight and their completion. A transfer is posted (Gloo work for a
// Send/Recv, a future on a group's thread for a collective) and completes when the Program waits
// for it, when a blocking op ends, or at the end of the step; completing records the op's
// measurement and runs what the op does with what arrived (on_done).
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <vector>

#include <torch/csrc/distributed/c10d/Work.hpp>
#include <torch/torch.h>

#include "emu/worker/rank_context.hpp"

namespace geotrain {

struct PendingOp {
  double start_s = 0;
  double bytes = 0;
  std::vector<c10::intrusive_ptr<c10d::Work>> works;  // Send/Recv
  std::shared_future<void> future;                    // collective, on its group's thread
  std::shared_ptr<double> end_s;  // set by the collective's thread
  std::shared_ptr<double> sent;   // bytes counted by the collective's thread
  std::function<void()> on_done;
  torch::Tensor keep_alive;  // a sent tensor lives until its work is done
  bool in_flight() const { return !works.empty() || future.valid(); }
};

class PendingOps {
 public:
  explicit PendingOps(RankContext& ctx) : ctx_(ctx) {}
  void add(int i, PendingOp op) { pending_[i] = std::move(op); }
  bool contains(int i) const { return pending_.count(i) != 0; }
  // Waits for op i (at most the cluster's timeout), runs its on_done, records it. No-op if it
  // is not pending.
  void complete(int i);
  void complete_all();          // the ops the Program never waited for, at the end of the step
  // The gradient syncs left open, before an optimizer step (not an overlapped pseudo-gradient
  // exchange: Streaming DiLoCo's completes at its Wait, inner steps later).
  void complete_collectives();

 private:
  RankContext& ctx_;
  std::map<int, PendingOp> pending_;
};

}  // namespace geotrain
