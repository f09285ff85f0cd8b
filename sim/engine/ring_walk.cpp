#include "sim/engine/ring_walk.hpp"

#include <algorithm>
#include <deque>
#include <stdexcept>

#include "sim/common/small_math.hpp"

namespace geotrain::engine {

namespace {

// out[i] = max a[i-w+1 .. i] (the window clipped at 0), one monotone deque pass.
std::vector<double> max_ending_at(const std::vector<double>& a, std::size_t w) {
  std::vector<double> out(a.size());
  std::deque<std::size_t> d;
  for (std::size_t i = 0; i < a.size(); ++i) {
    while (!d.empty() && a[d.back()] <= a[i]) d.pop_back();
    d.push_back(i);
    if (d.front() + w <= i) d.pop_front();
    out[i] = a[d.front()];
  }
  return out;
}

// out[i] = max a[i .. i+w-1] (clipped at the end).
std::vector<double> max_starting_at(const std::vector<double>& a, std::size_t w) {
  std::vector<double> out(a.size());
  std::deque<std::size_t> d;
  for (std::size_t i = a.size(); i-- > 0;) {
    while (!d.empty() && a[d.back()] <= a[i]) d.pop_back();
    d.push_back(i);
    if (d.front() >= i + w) d.pop_front();
    out[i] = a[d.front()];
  }
  return out;
}

}  // namespace

std::vector<double> ring_walk_steps(const std::vector<double>& first,
                                    const std::vector<double>& step_s, long steps) {
  const std::size_t n = first.size();
  std::vector<double> e = first, next(n);
  if (n < 2) {
    for (std::size_t p = 0; p < n; ++p) e[p] += static_cast<double>(steps) * step_s[p];
    return e;
  }
  for (long k = 0; k < steps; ++k) {
    for (std::size_t p = 0; p < n; ++p)
      next[p] = std::max({e[(p + n - 1) % n], e[p], e[(p + 1) % n]}) + step_s[p];
    e.swap(next);
  }
  return e;
}

std::optional<std::vector<double>> ring_walk_max(const std::vector<double>& first,
                                                 const std::vector<double>& step_s, long steps,
                                                 int max_classes) {
  const std::size_t n = first.size();
  if (n < 3) return ring_walk_steps(first, step_s, steps);
  if (steps < static_cast<long>(2 * n - 3))
    throw std::logic_error("ring_walk_max: fewer than 2N-3 steps (use the stepping form)");
  std::vector<double> classes = step_s;
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  if (classes.size() > static_cast<std::size_t>(max_classes)) return std::nullopt;

  // Positions are doubled (i and i + n are the same node) so that every leg is a plain range.
  const std::size_t m = 2 * n;
  std::vector<double> best(n, -kInf), prefix(m + 1), a(m), g(n);
  for (double tau : classes) {
    // prefix[i] = sum over doubled positions x < i of (T_x - tau): a leg's weight above tau.
    prefix[0] = 0;
    for (std::size_t i = 0; i < m; ++i) prefix[i + 1] = prefix[i] + (step_s[i % n] - tau);
    // Leg 1, q -> r, at most n-2 steps. Going up (q' = r' - d, r' = r + n): e(q) + P(r'+1) - P(q'+1).
    for (std::size_t i = 0; i < m; ++i) a[i] = first[i % n] - prefix[i + 1];
    const auto up1 = max_ending_at(a, n - 1);
    // Going down (q' = r + d): e(q) + P(q') - P(r).
    for (std::size_t i = 0; i < m; ++i) a[i] = first[i % n] + prefix[i];
    const auto down1 = max_starting_at(a, n - 1);
    for (std::size_t r = 0; r < n; ++r)
      g[r] = step_s[r] != tau ? -kInf
                              : std::max(prefix[r + n + 1] + up1[r + n], down1[r] - prefix[r]);
    // Leg 2, r -> p, at most n-1 steps. Up (p' = p + n): G(r) - P(r'+1) + P(p'+1).
    for (std::size_t i = 0; i < m; ++i) a[i] = g[i % n] - prefix[i + 1];
    const auto up2 = max_ending_at(a, n);
    // Down (r' = p + d): G(r) + P(r') - P(p).
    for (std::size_t i = 0; i < m; ++i) a[i] = g[i % n] + prefix[i];
    const auto down2 = max_starting_at(a, n);
    const double stay = static_cast<double>(steps) * tau;
    for (std::size_t p = 0; p < n; ++p) {
      const double leg2 = std::max(prefix[p + n + 1] + up2[p + n], down2[p] - prefix[p]);
      best[p] = std::max(best[p], stay + leg2);
    }
  }
  return best;
}

}  // namespace geotrain::engine
