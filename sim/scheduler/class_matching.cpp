#include "sim/scheduler/class_matching.hpp"

#include <algorithm>
#include <limits>

namespace geotrain {

double ClassMatching::solve(const std::vector<double>& cost, int classes, const std::vector<int>& count_x,
                            const std::vector<int>& count_y) {
  ax_.clear(), ay_.clear(), cx_.clear(), cy_.clear();
  for (int a = 0; a < classes; ++a) {
    if (count_x[static_cast<std::size_t>(a)]) ax_.push_back(a), cx_.push_back(count_x[static_cast<std::size_t>(a)]);
    if (count_y[static_cast<std::size_t>(a)]) ay_.push_back(a), cy_.push_back(count_y[static_cast<std::size_t>(a)]);
  }
  if (static_cast<int>(ax_.size()) > kMaxClassesPerGroup || static_cast<int>(ay_.size()) > kMaxClassesPerGroup) return -1;
  const std::size_t nx = ax_.size(), ny = ay_.size();
  row_cost_.resize(nx * ny);
  values_.clear();
  double lower = -std::numeric_limits<double>::infinity();
  std::vector<double> col_min(ny, std::numeric_limits<double>::infinity());
  for (std::size_t i = 0; i < nx; ++i) {
    double row_min = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < ny; ++j) {
      const double c = cost[static_cast<std::size_t>(ax_[i] * classes + ay_[j])];
      row_cost_[i * ny + j] = c;
      values_.push_back(c);
      row_min = std::min(row_min, c);
      col_min[j] = std::min(col_min[j], c);
    }
    lower = std::max(lower, row_min);
  }
  for (double c : col_min) lower = std::max(lower, c);
  std::sort(values_.begin(), values_.end());
  values_.erase(std::unique(values_.begin(), values_.end()), values_.end());
  // values_ from the bound up; the largest is always feasible (every pair allowed).
  std::size_t lo = static_cast<std::size_t>(std::lower_bound(values_.begin(), values_.end(), lower) - values_.begin());
  std::size_t hi = values_.size() - 1;
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    if (hall_holds(values_[mid])) hi = mid;
    else lo = mid + 1;
  }
  return values_[hi];
}

bool ClassMatching::hall_holds(double threshold) {
  const std::size_t nx = ax_.size(), ny = ay_.size();
  const std::size_t subsets = std::size_t{1} << nx;
  reach_.assign(subsets, 0);
  size_x_.assign(subsets, 0);
  for (std::size_t s = 1; s < subsets; ++s) {
    const auto i = static_cast<std::size_t>(__builtin_ctzll(s));
    const std::size_t rest = s & (s - 1);
    if (rest == 0) {
      unsigned reach = 0;
      for (std::size_t j = 0; j < ny; ++j)
        if (row_cost_[i * ny + j] <= threshold) reach |= 1u << j;
      reach_[s] = reach;
      size_x_[s] = cx_[i];
    } else {
      reach_[s] = reach_[rest] | reach_[s & ~rest];
      size_x_[s] = size_x_[rest] + cx_[i];
    }
    int reachable = 0;
    for (unsigned r = reach_[s]; r; r &= r - 1) reachable += cy_[static_cast<std::size_t>(__builtin_ctz(r))];
    if (size_x_[s] > reachable) return false;
  }
  return true;
}

}  // namespace geotrain
