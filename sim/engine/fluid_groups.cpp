#include "sim/engine/fluid_groups.hpp"

#include <algorithm>
#include <cmath>

#include "sim/common/small_math.hpp"

namespace geotrain::engine {

// Progressive filling (see the header).
std::vector<double> share_rates(const std::vector<FlowGroup>& groups, const std::vector<int>& active,
                                const std::vector<double>& capacity) {
  std::vector<double> rate(groups.size(), 0.0), used(capacity.size(), 0.0);
  std::vector<int> open = active;
  while (!open.empty()) {
    // The level at which the next link kind saturates or the next group meets its bound.
    std::vector<double> weight(capacity.size(), 0.0);
    for (int g : open)
      for (const auto& [k, n] : groups[at(g)].uses) weight[at(k)] += n / groups[at(g)].penalty;
    double level = kInf;
    for (std::size_t k = 0; k < capacity.size(); ++k)
      if (weight[k] > 0) level = std::min(level, std::max(0.0, capacity[k] - used[k]) / weight[k]);
    for (int g : open) level = std::min(level, groups[at(g)].bound_Bps * groups[at(g)].penalty);
    if (!std::isfinite(level)) level = 0;  // nothing bounds them: only zero-byte groups reach here
    // Freeze what saturates at this level (relative slack: the sums are not exact).
    std::vector<bool> full(capacity.size(), false);
    for (std::size_t k = 0; k < capacity.size(); ++k)
      full[k] = weight[k] > 0 && (capacity[k] - used[k]) / weight[k] <= level * (1 + 1e-12);
    std::vector<int> still;
    for (int g : open) {
      const FlowGroup& f = groups[at(g)];
      bool frozen = f.bound_Bps * f.penalty <= level * (1 + 1e-12);
      for (const auto& [k, n] : f.uses) frozen = frozen || full[at(k)];
      if (!frozen) {
        still.push_back(g);
        continue;
      }
      rate[at(g)] = std::min(level / f.penalty, f.bound_Bps);
      for (const auto& [k, n] : f.uses) used[at(k)] += n * rate[at(g)];
    }
    open.swap(still);
  }
  return rate;
}

std::vector<double> solve_fluid_groups(const std::vector<FlowGroup>& groups,
                                       const std::vector<double>& capacity_Bps) {
  const std::size_t n = groups.size();
  std::vector<double> finish(n, kInf), left(n);
  std::vector<bool> done(n, false);
  for (std::size_t g = 0; g < n; ++g) {
    left[g] = groups[g].bytes;
    if (groups[g].bytes <= 0) {
      finish[g] = groups[g].start_s + groups[g].latency_s;
      done[g] = true;
    }
  }
  double now = kInf;
  for (std::size_t g = 0; g < n; ++g)
    if (!done[g]) now = std::min(now, groups[g].start_s + groups[g].latency_s);
  while (std::isfinite(now)) {
    std::vector<int> active;
    double next_start = kInf;
    for (std::size_t g = 0; g < n; ++g) {
      if (done[g]) continue;
      const double from = groups[g].start_s + groups[g].latency_s;
      if (from <= now) active.push_back(static_cast<int>(g));
      else next_start = std::min(next_start, from);
    }
    const auto rate = share_rates(groups, active, capacity_Bps);
    double next_end = kInf;
    for (int g : active)
      if (rate[at(g)] > 0) next_end = std::min(next_end, now + left[at(g)] / rate[at(g)]);
    const double next = std::min(next_start, next_end);
    if (!std::isfinite(next)) break;  // nothing can move (a zero-capacity link): left unfinished
    for (int g : active) {
      const auto i = at(g);
      if (rate[i] <= 0) continue;
      // Groups whose own end is this event end now (exactly, not by subtracting down to 0).
      if (now + left[i] / rate[i] <= next || left[i] - rate[i] * (next - now) <= groups[i].bytes * 1e-12) {
        finish[i] = next;
        done[i] = true;
      } else {
        left[i] -= rate[i] * (next - now);
      }
    }
    now = next;
    bool any = false;
    for (std::size_t g = 0; g < n; ++g) any = any || !done[g];
    if (!any) break;
  }
  return finish;
}

}  // namespace geotrain::engine
