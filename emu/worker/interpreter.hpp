#pragma once
// Executes one rank's Program op by op with real tensors (see README.md for how each op maps to
// LibTorch and c10d). One instance per worker process.
#include <functional>
#include <future>
#include <map>
#include <deque>
#include <memory>

#include <torch/torch.h>

#include "emu/worker/progress_block.hpp"
#include "emu/worker/cluster.hpp"
#include "emu/worker/gpt_stage.hpp"
#include "emu/worker/markov_source.hpp"
#include "emu/worker/measurements.hpp"
#include "emu/worker/preduce_coordinator.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/serial_executor.hpp"
#include "emu/worker/worker.hpp"
#include "sim/workload/straggler_schedule.hpp"

namespace geotrain {

class Interpreter {
 public:
  Interpreter(const WorkerJob& job, const WorkerOptions& options, Cluster& cluster);

  ~Interpreter();
  // Before the first step: opens every connection a dynamic op may use (interpreter_dynamic.cpp).
  void warm_up_dynamic_groups();
  void run_step(int step);  // one iteration of the Program
  // Waits until the partial-reduce coordinators this rank hosts have served every arrival.
  void finish();
  const Measurements& measurements() const { return measurements_; }
  const RankPlan& plan() const { return plan_; }
  const MarkovSource& source() const { return source_; }
  std::int64_t parameter_count() const { return stage_.parameter_count(); }
  // FNV-1a of the stage's weights as fp32 bytes: replicas that must agree (DiLoCo after an
  // outer step) can be compared across workers (worker.json).
  std::string weights_fingerprint();

 private:
  // A nonblocking op in flight: Gloo work for Send/Recv, a future for collectives.
  struct Pending {
    double start_s = 0;
    double bytes = 0;
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    std::shared_future<void> future;
    std::shared_ptr<double> end_s;  // set by the collective's thread
    std::shared_ptr<double> sent;   // bytes counted by the collective's thread
    std::function<void()> on_done;
    torch::Tensor keep_alive;
  };

  void execute(int i, const Op& op);
  void compute(const ComputeOp& c);
  Pending send(int i, const SendOp& s);
  Pending recv(int i, const RecvOp& r);
  Pending collective(int i, const CollectiveOp& c);
  Pending weights_collective(int i, const CollectiveOp& c);
  Pending on_group_thread(GroupId group, std::function<double()> transfer);
  void complete(int i);  // waits for op i, records it
  // Dynamic ops and DiLoCo's outer step (interpreter_dynamic.cpp).
  void start_coordinators();
  double dynamic(int i, const DynamicOp& d);
  double gossip(int i, const DynamicOp& d, const GossipRule& rule, torch::Tensor& buffer);
  double partial_reduce(int i, const DynamicOp& d, torch::Tensor& buffer);
  void pseudo_gradient();
  void outer_step();
  torch::Tensor flat_weights();
  void set_weights(const torch::Tensor& flat);
  // DiLoCo churn (hivemind's load_state_from_peers): fp32 weights then outer momentum, and the
  // rejoining side, which also restarts its round from the loaded weights.
  torch::Tensor training_state();
  void load_training_state(const torch::Tensor& state);
  DType wire_dtype(Payload p) const;  // of a collective / dynamic op moving p
  void wait_for_transfer(int mb, Payload what);
  std::pair<torch::Tensor, torch::Tensor> batch(int mb) const;  // tokens, targets
  [[noreturn]] void fail(int i, const std::string& what, bool timeout) const;

  const WorkerJob& job_;
  WorkerOptions options_;
  Cluster& cluster_;
  RankPlan plan_;
  MarkovSource source_;
  GptStage stage_;
  std::unique_ptr<torch::optim::Optimizer> optimizer_;
  Measurements measurements_;
  std::map<GroupId, std::unique_ptr<SerialExecutor>> executors_;
  const std::vector<Op>& ops_;
  std::unique_ptr<ProgressMap> progress_;  // null without --progress

  int step_ = 0;
  std::int64_t grad_cursor_ = 0;  // next gradient element a collective takes
  double loss_ = 0;
  std::map<int, Pending> pending_;
  std::map<int, torch::Tensor> act_out_, grad_out_, act_in_, grad_in_;  // per micro-batch
  std::map<std::pair<int, int>, int> transfer_op_;  // (micro-batch, Payload) -> recv op index

  StragglerSchedule stragglers_;
  double slowdown_ = 1;  // this rank's device (WorkerJob::slowdown_of_rank)
  int pass_ = 0, passes_seen_ = 0;  // pass over the micro-batches within the iteration
  std::vector<bool> pseudo_gradient_op_;  // per op: DiLoCo's pseudo-gradient (kind other)
  bool has_outer_ = false;
  torch::Tensor round_start_, outer_momentum_;  // DiLoCo: weights at round start, Nesterov buffer
  std::deque<torch::Tensor> pushed_;  // HetPipe server: received gradients, in Wait order
  std::map<std::pair<GroupId, int>, std::int64_t> dynamic_round_;  // (group, tag) -> runs so far
  std::vector<std::unique_ptr<PreduceCoordinator>> coordinators_;
};

}  // namespace geotrain
