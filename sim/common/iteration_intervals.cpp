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

}  // namespace geotrain
