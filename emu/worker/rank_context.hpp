#pragma once
// What every part of one rank's interpreter shares: the job, the worker's options, the cluster,
// the rank's plan and Program ops, the measurements, and the step being executed. Failures are
// named from here, so every part reports "rank R step S op K ('label'): ..." alike.
#include <string>
#include <vector>

#include "emu/worker/measurements.hpp"
#include "emu/worker/rank_plan.hpp"
#include "emu/worker/worker.hpp"

namespace geotrain {

class Cluster;
class ComputeDevice;

struct RankContext {
  const WorkerJob& job;
  const WorkerOptions& options;
  Cluster& cluster;
  const ComputeDevice& device;  // where the stage computes and the wire buffers live
  const RankPlan& plan;
  const std::vector<Op>& ops;
  Measurements& measurements;
  int step = 0;

  int rank() const { return options.rank; }
  const Op& op(int i) const { return ops.at(static_cast<std::size_t>(i)); }
  // "rank R step S op K ('label'): <first line of what>", as TimeoutError or Error. c10d
  // messages carry a stack trace after their first line: it is dropped.
  [[noreturn]] void fail(int i, const std::string& what, bool timeout) const;
};

}  // namespace geotrain
