#include "sim/program/butterfly_parts.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/common/error.hpp"
#include "sim/common/small_math.hpp"

namespace geotrain {

std::vector<std::string> part_rule_names() { return {"hivemind", "proportional", "equal"}; }

std::optional<PartRule> part_rule_named(const std::string& name) {
  if (name == "hivemind") return PartRule::hivemind;
  if (name == "proportional") return PartRule::proportional;
  if (name == "equal") return PartRule::equal;
  return std::nullopt;
}

const char* to_string(PartRule rule) {
  switch (rule) {
    case PartRule::hivemind: return "hivemind";
    case PartRule::proportional: return "proportional";
    case PartRule::equal: return "equal";
  }
  return "?";
}

namespace {

// The water-filling optimum of hivemind's linear program (butterfly_parts.hpp). Peers too slow
// to own a part (1 / b_i >= T) bound the all-reduce by their client traffic alone; the program
// then has many optima and this one lets the owners finish as early as they can.
std::vector<double> hivemind_fractions(const std::vector<double>& b) {
  const int n = static_cast<int>(b.size());
  if (n <= 2) return std::vector<double>(b.size(), 1.0 / n);
  std::vector<int> order(b.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return b[at(x)] > b[at(y)]; });
  double sum = 0, t = 0;
  int owners = 0;
  for (int k = 1; k <= n; ++k) {
    const double s = sum + b[at(order[at(k - 1)])];
    const double tk = (n - 2 + k) / s;
    if (tk * b[at(order[at(k - 1)])] <= 1) break;  // the k-th fastest would own nothing
    sum = s, t = tk, owners = k;
  }
  std::vector<double> f(b.size(), 0.0);
  for (int k = 0; k < owners; ++k) {
    const int i = order[at(k)];
    f[at(i)] = (t * b[at(i)] - 1) / (n - 2);
  }
  return f;
}

}  // namespace

std::vector<double> butterfly_fractions(const std::vector<double>& bandwidths, PartRule rule) {
  if (bandwidths.empty()) return {};
  for (double x : bandwidths)
    if (!(x > 0) || !std::isfinite(x))
      throw InputError(fmt::format("butterfly parts: a peer's bandwidth is {} (expected > 0)", x));
  const auto n = static_cast<double>(bandwidths.size());
  switch (rule) {
    case PartRule::equal: return std::vector<double>(bandwidths.size(), 1.0 / n);
    case PartRule::proportional: {
      const double total = std::accumulate(bandwidths.begin(), bandwidths.end(), 0.0);
      std::vector<double> f;
      for (double x : bandwidths) f.push_back(x / total);
      return f;
    }
    case PartRule::hivemind: return hivemind_fractions(bandwidths);
  }
  return {};
}

Transfer part_range(std::size_t count, const std::vector<double>& fractions, int q) {
  const int n = static_cast<int>(fractions.size());
  // Running sums in position order, floored: every executor computes the same boundaries.
  double before = 0;
  for (int j = 0; j < q; ++j) before += fractions[at(j)];
  const double through = before + fractions[at(q)];
  const auto edge = [&](double share) {
    return std::min(count, static_cast<std::size_t>(std::floor(share * static_cast<double>(count))));
  };
  const std::size_t b = edge(before);
  const std::size_t e = q + 1 == n ? count : std::max(b, edge(through));
  return {q, b, e - b};
}

}  // namespace geotrain
