#pragma once
// The iteration time both executors report, defined once: how often the cluster as a whole
// completes an iteration. T_k = when the LAST rank finished iteration k (kept non-decreasing);
// the k-th interval is T_k - T_(k-1), with T_(-1) = when the first rank started.
//
// For synchronous strategies this equals each rank's own iteration time. For asynchronous ones
// (gossip, partial reduce, HetPipe) ranks drift apart and a rank's own step times swing between
// short steps and long waits; the slowest rank's step time per step then overstates the rate,
// while the completion intervals add up to the run's makespan.
//
// The drain. A finite asynchronous run ends unevenly: the fast ranks finish their last
// iteration while the slow ones still have several to go, and those then run with fewer (or
// no) peers to wait for or exchange with, at a different pace (measured: SD-Pipe, 16 workers,
// 11 intervals of 15.3 s, then 11 of 0.7 s once the fast replicas were done). That tail says
// how a 24-step run ends, not how fast training runs, and it makes the median of a short run
// fall between two regimes. The steady iterations are those that started (T_(k-1)) before the
// drain: the moment the first rank that runs the last iteration finished it. A synchronous run
// has no drain (every rank finishes the last iteration together), so all its iterations are
// steady.
#include <limits>
#include <utility>
#include <vector>

namespace geotrain {

// last_end_s[k] = T_k before the non-decreasing fix-up; start_s = T_(-1).
std::vector<double> completion_intervals(const std::vector<double>& last_end_s, double start_s);

// Collects T_k and T_(-1) from op records (any executor's rows), then gives the intervals.
class CompletionIntervals {
 public:
  explicit CompletionIntervals(int iterations);
  // One op of iteration `iteration` ran [start_s, end_s] on `rank` (-1: unknown, then the run
  // has no drain); iterations out of range are ignored.
  void add(int iteration, double start_s, double end_s, int rank = -1);
  std::vector<double> intervals() const { return completion_intervals(last_end_s_, start_s_); }
  // Iterations 0 .. steady_iterations() - 1 started before the drain (all of them when no op
  // named its rank).
  int steady_iterations() const;

 private:
  std::vector<double> last_end_s_;
  double start_s_ = 0;
  bool started_ = false;
  std::vector<double> rank_last_iteration_end_s_;  // per rank, its end of the last iteration
  std::vector<bool> rank_in_last_iteration_;
};

// The iterations a run is judged by, [first, last): from the warm-up to the drain. When the
// drain leaves nothing after the warm-up, every iteration after the warm-up; when the warm-up
// takes every iteration, those before the drain. `compare` judges these, and the emulator's and
// the real runner's summaries report their median, so both sides use this one rule.
struct JudgedIterations {
  int first = 0, last = 0;
};
JudgedIterations judged_iterations(int iterations, int warmup,
                                   int steady = std::numeric_limits<int>::max());

// A Program whose iterations differ by design in a fixed cycle of `period` iterations (Moshpit:
// round k averages along grid axis k mod d, each axis over other links) alternates between the
// cycle's iteration times, and a median of single intervals falls on the edge between them, at
// one phase of the cycle or the other. With period p > 1 the judged times are the means of p
// consecutive judged intervals, (T_(i+p-1) - T_(i-1)) / p, one per window starting at each
// judged iteration i whose window lies inside the judged ones: every window holds each phase of
// the cycle once. Period 1, or fewer judged iterations than p: the intervals themselves.
// Returns (the iteration a window starts at, its time).
std::vector<std::pair<int, double>> judged_times(const std::vector<double>& intervals, JudgedIterations judged,
                                                 int period);

}  // namespace geotrain
