#include "sim/scheduler/bottleneck_matching.hpp"

#include <algorithm>

#include "sim/common/small_math.hpp"

namespace geotrain {

namespace {
}

// Threshold algorithm: start at the lower bound (every row and column needs one of its entries)
// with the maximum matching of the entries under it; while it is not perfect, raise the
// threshold to the next larger entry, add the edges that became allowed, and augment from the
// free rows. Edges are only ever added, so the matching so far stays valid and each raise costs
// one augmenting search per free row; no sorting of the k^2 entries is needed. In DT-FM's cases
// the bound is usually tight, so most calls end after the first round.
double BottleneckMatching::solve(const double* cost, int k, std::vector<int>* match) {
  if (k <= 0) {
    if (match) match->clear();
    return 0;
  }
  double threshold = -kInf;
  for (int r = 0; r < k; ++r) threshold = std::max(threshold, *std::min_element(cost + r * k, cost + r * k + k));
  for (int c = 0; c < k; ++c) {
    double col_min = cost[c];
    for (int r = 1; r < k; ++r) col_min = std::min(col_min, cost[r * k + c]);
    threshold = std::max(threshold, col_min);
  }
  k_ = k;
  words_ = (k + 63) / 64;
  adjacency_.assign(static_cast<std::size_t>(k * words_), 0);
  row_of_column_.assign(static_cast<std::size_t>(k), -1);
  column_of_row_.assign(static_cast<std::size_t>(k), -1);
  double added_up_to = -kInf;  // edges with cost <= added_up_to are in adjacency_
  int matched = 0;
  for (;;) {
    for (int r = 0; r < k; ++r)
      for (int c = 0; c < k; ++c) {
        const double x = cost[r * k + c];
        if (x > added_up_to && x <= threshold)
          adjacency_[static_cast<std::size_t>(r * words_ + c / 64)] |= std::uint64_t{1} << (c % 64);
      }
    added_up_to = threshold;
    for (int r = 0; r < k && matched < k; ++r) {
      if (column_of_row_[static_cast<std::size_t>(r)] >= 0) continue;
      visited_.assign(static_cast<std::size_t>(words_), 0);
      if (augment(r)) ++matched;
    }
    if (matched == k) break;
    double next = kInf;
    for (int i = 0; i < k * k; ++i)
      if (cost[i] > threshold) next = std::min(next, cost[i]);
    threshold = next;
  }
  if (match) match->assign(column_of_row_.begin(), column_of_row_.end());
  return threshold;
}

// Kuhn's depth-first search for an augmenting path from `row`; depth is at most k.
bool BottleneckMatching::augment(int row) {
  for (int w = 0; w < words_; ++w) {
    std::uint64_t open = adjacency_[static_cast<std::size_t>(row * words_ + w)] & ~visited_[static_cast<std::size_t>(w)];
    while (open) {
      const int bit = __builtin_ctzll(open);
      const int c = w * 64 + bit;
      visited_[static_cast<std::size_t>(w)] |= std::uint64_t{1} << bit;
      const int owner = row_of_column_[static_cast<std::size_t>(c)];
      if (owner < 0 || augment(owner)) {
        row_of_column_[static_cast<std::size_t>(c)] = row;
        column_of_row_[static_cast<std::size_t>(row)] = c;
        return true;
      }
      // The recursion may have visited more columns of this word: skip them too.
      open &= ~visited_[static_cast<std::size_t>(w)];
    }
  }
  return false;
}

}  // namespace geotrain
