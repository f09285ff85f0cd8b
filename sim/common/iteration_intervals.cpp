#include "sim/common/iteration_intervals.hpp"

#include <algorithm>

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

void CompletionIntervals::add(int iteration, double start_s, double end_s) {
  if (iteration < 0 || static_cast<std::size_t>(iteration) >= last_end_s_.size()) return;
  auto& end = last_end_s_[static_cast<std::size_t>(iteration)];
  end = std::max(end, end_s);
  if (iteration == 0) start_s_ = started_ ? std::min(start_s_, start_s) : start_s, started_ = true;
}

}  // namespace geotrain
