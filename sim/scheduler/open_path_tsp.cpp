#include "sim/scheduler/open_path_tsp.hpp"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>

#include "sim/common/small_math.hpp"
#endif

namespace geotrain {

namespace {

// Next larger number with the same number of set bits (Gosper's hack): walks the subsets of one
// size in increasing order without testing every mask.
std::size_t next_subset(std::size_t x) {
  const std::size_t low = x & (~x + 1);
  const std::size_t ripple = x + low;
  return ripple | (((x ^ ripple) >> 2) / low);
}

// min over j < n (n even) of row[j] + arrive[j]. A NaN sum (an unwritten +inf entry plus a NaN
// diagonal) is skipped, as std::min(best, NaN) skips it: MINPD returns its second operand when
// either is NaN. Rows are 16-byte aligned (even strides in vectors of double).
inline double row_min(const double* row, const double* arrive, std::size_t n) {
#if defined(__SSE2__)
  __m128d a = _mm_set1_pd(kInf), b = _mm_set1_pd(kInf);
  std::size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    a = _mm_min_pd(_mm_add_pd(_mm_load_pd(row + j), _mm_load_pd(arrive + j)), a);
    b = _mm_min_pd(_mm_add_pd(_mm_load_pd(row + j + 2), _mm_load_pd(arrive + j + 2)), b);
  }
  if (j < n) a = _mm_min_pd(_mm_add_pd(_mm_load_pd(row + j), _mm_load_pd(arrive + j)), a);
  a = _mm_min_pd(b, a);
  a = _mm_min_pd(_mm_unpackhi_pd(a, a), a);
  return _mm_cvtsd_f64(a);
#else
  double best = kInf;
  for (std::size_t j = 0; j < n; ++j) best = std::min(best, row[j] + arrive[j]);
  return best;
#endif
}

}  // namespace

double path_cost(const std::vector<double>& cost, int n, const std::vector<int>& order) {
  double total = 0;
  for (std::size_t i = 1; i < order.size(); ++i)
    total += cost[static_cast<std::size_t>(order[i - 1] * n + order[i])];
  return total;
}

OpenPath OpenPathTsp::solve(const std::vector<double>& cost, int n) {
  if (n <= 0) return {};
  if (n == 1) return {0, {0}};
  return n <= exact_limit_ ? held_karp(cost, n) : heuristic(cost, n);
}

// Subset DP: table_[mask][k] = cheapest path over `mask` ending at k (any start), filled layer
// by layer for masks of up to `max_bits` nodes. Each entry pulls from the row of mask - {k}:
// two cache lines read per entry, where pushing would touch one row per extension (the table
// is 8 MiB at n = 16 and does not fit in cache).
//
// The pull scans the whole row, two nodes per SIMD instruction, instead of walking the bits of
// mask - {k}: entries of nodes outside a mask are never written and stay +inf, so they never
// win the minimum, and a minimum is exact in any order, so the value is the one the bit walk
// gives. At 16 groups that is ~77 instructions per entry instead of ~106 (callgrind; most
// masks have 7-8 nodes), and no unpredictable branch per node.
void OpenPathTsp::fill_table(const std::vector<double>& cost, int n, int max_bits) {
  const auto un = static_cast<std::size_t>(n);
  const std::size_t st = (un + 1) / 2 * 2;  // rows padded to whole SIMD pairs
  const std::size_t full = (std::size_t{1} << n) - 1;
  if (table_n_ != n || table_.size() < (full + 1) * st) {
    table_.assign((full + 1) * st, kInf);  // the layout changed: every entry unwritten again
    table_n_ = n;
  }
  stride_ = st;
  // into_[k][j] = cost[j][k]: the costs of arriving at k, contiguous; 0 in the padding, so a
  // padding column sums to +inf.
  into_.assign(un * st, 0.0);
  for (std::size_t j = 0; j < un; ++j)
    for (std::size_t k = 0; k < un; ++k) into_[k * st + j] = cost[j * un + k];
  for (std::size_t j = 0; j < un; ++j) table_[(std::size_t{1} << j) * st + j] = 0;
  for (int bits = 2; bits <= max_bits; ++bits)
    for (std::size_t mask = (std::size_t{1} << bits) - 1; mask <= full; mask = next_subset(mask))
      for (std::size_t ends = mask; ends; ends &= ends - 1) {
        const auto k = static_cast<std::size_t>(__builtin_ctzll(ends));
        const std::size_t prev = mask & ~(std::size_t{1} << k);
        table_[mask * st + k] = row_min(&table_[prev * st], &into_[k * st], st);
      }
}

// Walks table_ back from (mask, last): the predecessor is the node whose entry reproduces the
// value exactly (same additions, same order), so no parent table is needed. Returns the nodes
// from the path's start to `last`.
std::vector<int> OpenPathTsp::walk_back(const std::vector<double>& cost, int n, std::size_t mask,
                                        std::size_t last) const {
  const auto un = static_cast<std::size_t>(n);
  const std::size_t st = stride_;
  std::vector<int> order{static_cast<int>(last)};
  while (mask != (std::size_t{1} << last)) {
    const std::size_t rest = mask & ~(std::size_t{1} << last);
    const double target = table_[mask * st + last];
    for (std::size_t j = 0; j < un; ++j)
      if ((rest >> j & 1) && table_[rest * st + j] + cost[j * un + last] == target) {
        mask = rest, last = j;
        break;
      }
    order.push_back(static_cast<int>(last));
  }
  std::reverse(order.begin(), order.end());
  return order;
}

OpenPath OpenPathTsp::held_karp(const std::vector<double>& cost, int n) {
  const auto un = static_cast<std::size_t>(n);
  const std::size_t st = (un + 1) / 2 * 2;  // fill_table's row stride
  const std::size_t full = (std::size_t{1} << n) - 1;
  bool symmetric = true;
  for (std::size_t i = 0; i < un && symmetric; ++i)
    for (std::size_t j = i + 1; j < un; ++j) symmetric = symmetric && cost[i * un + j] == cost[j * un + i];
  OpenPath best{kInf, {}};
  if (!symmetric || n < 4) {
    fill_table(cost, n, n);
    std::size_t last = 0;
    for (std::size_t j = 0; j < un; ++j)
      if (table_[full * st + j] < best.cost) best.cost = table_[full * st + j], last = j;
    best.order = walk_back(cost, n, full, last);
    return best;
  }
  // Meet in the middle (symmetric costs): the optimal path splits into a first half A of h
  // nodes ending at j, the edge j-k, and the rest B = ~A, which read backwards is a path over B
  // ending at k. Only subsets of up to n - h nodes are needed: ~40% less work at n = 16.
  const int h = n / 2;
  fill_table(cost, n, n - h);
  std::size_t best_a = 0, best_j = 0, best_k = 0;
  for (std::size_t a = (std::size_t{1} << h) - 1; a <= full; a = next_subset(a)) {
    // With equal halves every split appears as (A, B) and (B, A): keep the one holding node 0.
    if (2 * h == n && !(a & 1)) continue;
    const std::size_t b = full & ~a;
    for (std::size_t ends = a; ends; ends &= ends - 1) {
      const auto j = static_cast<std::size_t>(__builtin_ctzll(ends));
      const double head = table_[a * st + j];
      for (std::size_t starts = b; starts; starts &= starts - 1) {
        const auto k = static_cast<std::size_t>(__builtin_ctzll(starts));
        const double c = head + cost[j * un + k] + table_[b * st + k];
        if (c < best.cost) best.cost = c, best_a = a, best_j = j, best_k = k;
      }
    }
  }
  best.order = walk_back(cost, n, best_a, best_j);
  std::vector<int> tail = walk_back(cost, n, full & ~best_a, best_k);
  best.order.insert(best.order.end(), tail.rbegin(), tail.rend());
  return best;
}

namespace {

// 2-opt on an open path: reverse order[i..j]; Or-opt: move a run of 1-3 nodes elsewhere.
// Both re-cost the whole path (n is small, and asymmetric matrices stay correct).
bool improve_once(const std::vector<double>& cost, int n, std::vector<int>& order, double& best) {
  const int m = static_cast<int>(order.size());
  for (int i = 0; i < m - 1; ++i)
    for (int j = i + 1; j < m; ++j) {
      std::reverse(order.begin() + i, order.begin() + j + 1);
      const double c = path_cost(cost, n, order);
      if (c < best - 1e-12 * std::abs(best)) {
        best = c;
        return true;
      }
      std::reverse(order.begin() + i, order.begin() + j + 1);
    }
  for (int len = 1; len <= 3; ++len)
    for (int i = 0; i + len <= m; ++i)
      for (int to = 0; to + len <= m; ++to) {
        if (to == i) continue;
        std::vector<int> trial = order;
        std::vector<int> run(trial.begin() + i, trial.begin() + i + len);
        trial.erase(trial.begin() + i, trial.begin() + i + len);
        trial.insert(trial.begin() + to, run.begin(), run.end());
        const double c = path_cost(cost, n, trial);
        if (c < best - 1e-12 * std::abs(best)) {
          best = c, order = std::move(trial);
          return true;
        }
      }
  return false;
}

}  // namespace

OpenPath OpenPathTsp::heuristic(const std::vector<double>& cost, int n) const {
  OpenPath best{kInf, {}};
  const auto un = static_cast<std::size_t>(n);
  for (int start = 0; start < n; ++start) {
    std::vector<int> order{start};
    std::vector<char> used(un, 0);
    used[static_cast<std::size_t>(start)] = 1;
    for (int step = 1; step < n; ++step) {
      const int from = order.back();
      int next = -1;
      for (int k = 0; k < n; ++k)
        if (!used[static_cast<std::size_t>(k)] &&
            (next < 0 || cost[static_cast<std::size_t>(from * n + k)] < cost[static_cast<std::size_t>(from * n + next)]))
          next = k;
      used[static_cast<std::size_t>(next)] = 1;
      order.push_back(next);
    }
    double c = path_cost(cost, n, order);
    while (improve_once(cost, n, order, c)) {
    }
    if (c < best.cost) best = {c, order};
  }
  return best;
}

}  // namespace geotrain
