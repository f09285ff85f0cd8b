#include "sim/common/iteration_intervals.hpp"

#include <algorithm>
#include <limits>

namespace geotrain {

std::vector<double> completion_intervals(const std::vector<double>& last_end_s, double start_s) {
  std::vector<double> out;
  out.reserve(last_end_s.size());
  double previous = start_s;
  for (double end : last_end_s) {
    const double t = std::max(end, previous);
    out.push_back(t - previous);
    previous = t;
  }
  return out;
}

CompletionIntervals::CompletionIntervals(int iterations)
    : last_end_s_(static_cast<std::size_t>(std::max(iterations, 0)), 0.0) {}

void CompletionIntervals::add(int iteration, double start_s, double end_s, int rank) {
  if (iteration < 0 || static_cast<std::size_t>(iteration) >= last_end_s_.size()) return;
  auto& end = last_end_s_[static_cast<std::size_t>(iteration)];
  end = std::max(end, end_s);
  if (iteration == 0) start_s_ = started_ ? std::min(start_s_, start_s) : start_s, started_ = true;
  if (rank < 0 || static_cast<std::size_t>(iteration) + 1 != last_end_s_.size()) return;
  const auto r = static_cast<std::size_t>(rank);
  if (r >= rank_in_last_iteration_.size()) {
    rank_in_last_iteration_.resize(r + 1, false);
    rank_last_iteration_end_s_.resize(r + 1, 0.0);
  }
  auto& rank_end = rank_last_iteration_end_s_[r];
  rank_end = rank_in_last_iteration_[r] ? std::max(rank_end, end_s) : end_s;
  rank_in_last_iteration_[r] = true;
}

int CompletionIntervals::steady_iterations() const {
  const int n = static_cast<int>(last_end_s_.size());
  double drain_s = std::numeric_limits<double>::infinity();
  for (std::size_t r = 0; r < rank_in_last_iteration_.size(); ++r)
    if (rank_in_last_iteration_[r]) drain_s = std::min(drain_s, rank_last_iteration_end_s_[r]);
  if (drain_s == std::numeric_limits<double>::infinity()) return n;
  // T_(k-1), non-decreasing, as completion_intervals has it.
  double previous = start_s_;
  int steady = 0;
  for (int k = 0; k < n; ++k) {
    if (!(previous < drain_s)) break;
    ++steady;
    previous = std::max(previous, last_end_s_[static_cast<std::size_t>(k)]);
  }
  return std::max(steady, 1);
}

JudgedIterations judged_iterations(int iterations, int warmup, int steady) {
  steady = std::min(steady, iterations);
  JudgedIterations j;
  j.first = iterations > warmup ? std::max(warmup, 0) : 0;
  j.last = steady > j.first ? steady : iterations;
  return j;
}

std::vector<std::pair<int, double>> judged_times(const std::vector<double>& intervals, JudgedIterations judged,
                                                 int period) {
  judged.last = std::min(judged.last, static_cast<int>(intervals.size()));
  const int p = period > 1 && judged.last - judged.first >= period ? period : 1;
  std::vector<std::pair<int, double>> out;
  for (int i = judged.first; i + p <= judged.last; ++i) {
    double sum = 0;
    for (int k = i; k < i + p; ++k) sum += intervals[static_cast<std::size_t>(k)];
    out.emplace_back(i, sum / p);
  }
  return out;
}

}  // namespace geotrain
