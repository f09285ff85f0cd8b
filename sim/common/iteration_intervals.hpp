#pragma once
// The iteration time both executors report, defined once: how often the cluster as a whole
// completes an iteration. T_k = when the LAST rank finished iteration k (kept non-decreasing);
// the k-th interval is T_k - T_(k-1), with T_(-1) = when the first rank started.
//
// For synchronous strategies this equals each rank's own iteration time. For asynchronous ones
// (gossip, partial reduce, HetPipe) ranks drift apart and a rank's own step times swing between
// short steps and long waits; the slowest rank's step time per step then overstates the rate,
// while the completion intervals add up to the run's makespan.
#include <vector>

namespace geotrain {

// last_end_s[k] = T_k before the non-decreasing fix-up; start_s = T_(-1).
std::vector<double> completion_intervals(const std::vector<double>& last_end_s, double start_s);

// Collects T_k and T_(-1) from op records (any executor's rows), then gives the intervals.
class CompletionIntervals {
 public:
  explicit CompletionIntervals(int iterations);
  // One op of iteration `iteration` ran [start_s, end_s]; iterations out of range are ignored.
  void add(int iteration, double start_s, double end_s);
  std::vector<double> intervals() const { return completion_intervals(last_end_s_, start_s_); }

 private:
  std::vector<double> last_end_s_;
  double start_s_ = 0;
  bool started_ = false;
};

}  // namespace geotrain
