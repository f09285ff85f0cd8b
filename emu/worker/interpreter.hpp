#pragma once
// Executes one rank's Program op by op with real tensors (see README.md for how each op maps to
// LibTorch and c10d). One instance per worker process.
#include <functional>
#include <future>
#include <map>
#include <memory>

#include <torch/torch.h>

#include "emu/launch/progress_block.hpp"
#include "emu/worker/cluster.hpp"
#include "emu/worker/gpt_stage.hpp"
#include "emu/worker/markov_source.hpp"
#include "emu/worker/measurements.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/serial_executor.hpp"
#include "emu/worker/worker.hpp"

namespace geotrain {

class Interpreter {
 public:
  Interpreter(const WorkerJob& job, const WorkerOptions& options, Cluster& cluster);

  void run_step(int step);  // one iteration of the Program
  const Measurements& measurements() const { return measurements_; }
  const RankPlan& plan() const { return plan_; }
  const MarkovSource& source() const { return source_; }
  std::int64_t parameter_count() const { return stage_.parameter_count(); }

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
  Pending collective(const CollectiveOp& c);
  void complete(int i);  // waits for op i, records it
  void wait_for_transfer(int mb, Carries what);
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
  std::map<std::pair<int, int>, int> transfer_op_;  // (micro-batch, Carries) -> recv op index
};

}  // namespace geotrain
