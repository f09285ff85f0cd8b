#pragma once
// An independent, slow implementation of the reference formulas (docs/dtfm-cases.md)
// in the reference's own units: d in ms, b in Gbit/s, G and A in GB. Bottleneck matchings and
// the open path are found by enumerating permutations, so it is only for small groups.
#include <algorithm>
#include <limits>
#include <numeric>
#include <vector>

namespace reference {

struct Net {
  int n;
  std::vector<double> d_ms, b_gbps;  // n x n
  double d(int i, int j) const { return d_ms[static_cast<std::size_t>(i * n + j)]; }
  double b(int i, int j) const { return b_gbps[static_cast<std::size_t>(i * n + j)]; }
};

using Groups = std::vector<std::vector<int>>;

inline double dp_cost(const Net& net, const Groups& groups, double g_gb) {
  double dp = -std::numeric_limits<double>::infinity();
  for (const auto& p : groups) {
    const double k = static_cast<double>(p.size());
    for (int i : p) {
      double c = 0;
      for (int j : p)
        if (j != i) c += 2 * (net.d(i, j) / 1000 + g_gb * 8 / (net.b(i, j) * k));
      dp = std::max(dp, c);
    }
  }
  return dp;
}

// min over all one-to-one pairings of the slowest pair.
inline double bottleneck(const Net& net, const std::vector<int>& x, const std::vector<int>& y, double a_gb) {
  std::vector<int> perm(y.size());
  std::iota(perm.begin(), perm.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double worst = 0;
    for (std::size_t r = 0; r < x.size(); ++r)
      worst = std::max(worst, net.d(x[r], y[static_cast<std::size_t>(perm[r])]) / 1000 +
                                  a_gb * 8 / net.b(x[r], y[static_cast<std::size_t>(perm[r])]));
    best = std::min(best, worst);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

inline double open_path(const std::vector<double>& cost, int n) {
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double c = 0;
    for (int i = 1; i < n; ++i) c += cost[static_cast<std::size_t>(order[static_cast<std::size_t>(i - 1)] * n + order[static_cast<std::size_t>(i)])];
    best = std::min(best, c);
  } while (std::next_permutation(order.begin(), order.end()));
  return best;
}

// total = DP + 2 PP
inline double total_cost(const Net& net, const Groups& groups, double g_gb, double a_gb, double* pp_out = nullptr) {
  const int s = static_cast<int>(groups.size());
  std::vector<double> cost(static_cast<std::size_t>(s * s), 0);
  for (int x = 0; x < s; ++x)
    for (int y = x + 1; y < s; ++y)
      cost[static_cast<std::size_t>(x * s + y)] = cost[static_cast<std::size_t>(y * s + x)] =
          bottleneck(net, groups[static_cast<std::size_t>(x)], groups[static_cast<std::size_t>(y)], a_gb);
  const double pp = open_path(cost, s);
  if (pp_out) *pp_out = 2 * pp;
  return dp_cost(net, groups, g_gb) + 2 * pp;
}

}  // namespace reference
