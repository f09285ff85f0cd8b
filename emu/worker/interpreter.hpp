#pragma once
// Executes one rank's Program op by op with real tensors (see README.md for how each op maps to
// LibTorch and c10d). One instance per worker process. It walks the ops and runs Compute ops
// itself; the rest is delegated by concern:
//   StageState   the stage's weights, optimizer and per-strategy state (DiLoCo, HetPipe)
//   FragmentOuterState  Streaming DiLoCo's per-fragment outer state and ops
//   TransferOps  Send / Recv / Collective, posted as PendingOps
//   PendingOps   ops in flight, their completion and measurement
//   DynamicOps   gossip and partial reduce (rules chosen at run time)
#include <memory>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "emu/worker/compute_device.hpp"
#include "emu/worker/dynamic_ops.hpp"
#include "emu/worker/fragment_outer_state.hpp"
#include "emu/worker/markov_source.hpp"
#include "emu/worker/measurements.hpp"
#include "emu/worker/micro_batch_tensors.hpp"
#include "emu/worker/pending_ops.hpp"
#include "emu/worker/progress_block.hpp"
#include "emu/worker/rank_context.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/stage_state.hpp"
#include "emu/worker/transfer_ops.hpp"
#include "emu/worker/worker.hpp"
#include "sim/workload/straggler_schedule.hpp"

namespace geotrain {

class Interpreter {
 public:
  Interpreter(const WorkerJob& job, const WorkerOptions& options, Cluster& cluster, const ComputeDevice& device);

  // Opens the TCP windows of every connection the Program uses before step 0: the dynamic
  // groups' members pairwise, and the peers of its Sends and Recvs.
  void warm_up_connections() {
    transfers_.warm_up_pairs();
    dynamic_.warm_up_groups();
  }
  void run_step(int step);  // one iteration of the Program
  // Waits until the partial-reduce coordinators this rank hosts have served every arrival.
  void finish() { dynamic_.finish(); }
  const Measurements& measurements() const { return measurements_; }
  const RankPlan& plan() const { return plan_; }
  const MarkovSource& source() const { return source_; }
  std::int64_t parameter_count() const { return state_.parameter_count(); }
  std::string weights_fingerprint() { return state_.weights_fingerprint(); }

 private:
  void execute(int i, const Op& op);
  void compute(int i, const ComputeOp& c);
  void forward(const ComputeOp& c);
  void backward(const ComputeOp& c);
  void optimizer_step();
  // Completes the Recv that brings micro-batch mb's `what`, if it is still in flight.
  void wait_for_transfer(int mb, Payload what);
  std::pair<torch::Tensor, torch::Tensor> batch(int mb) const;  // tokens, targets
  // Each collective covers a slice of the stage's gradient; together, in every epoch, exactly it.
  void check_gradient_coverage() const;

  WorkerOptions options_;
  const std::vector<Op>& ops_;
  RankPlan plan_;
  MarkovSource source_;
  Measurements measurements_;
  RankContext ctx_;
  StageState state_;
  MicroBatchTensors tensors_;
  PendingOps pending_;
  TransferOps transfers_;
  DynamicOps dynamic_;
  std::unique_ptr<ProgressMap> progress_;  // null without --progress

  StragglerSchedule stragglers_;
  double slowdown_ = 1;  // this rank's device (WorkerJob::slowdown_of_rank)
  double loss_ = 0;
  int pass_ = 0, passes_seen_ = 0;        // pass over the micro-batches within the iteration
  std::vector<bool> pseudo_gradient_op_;  // per op: DiLoCo's pseudo-gradient (kind other)
  bool has_outer_ = false;
  std::unique_ptr<FragmentOuterState> fragments_;  // Streaming DiLoCo (OuterStep::fragmented)
};

}  // namespace geotrain
