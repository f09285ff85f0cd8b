#include "sim/scheduler/baseline_gain.hpp"

#include "sim/common/small_math.hpp"

namespace geotrain {

BaselineGain::BaselineGain(const CostModel& model) : model_(model) {
  const int n = model.devices();
  weight_.assign(at(n) * at(n), 0);
  for (int v = 0; v < n; ++v)
    for (int u = 0; u < n; ++u)
      if (u != v) weight_[at(v) * at(n) + at(u)] = model.pp_pair_s(v, u) - model.gradient_pair_s(v, u);
}

void BaselineGain::reset(const std::vector<int>& group_of) {
  const int n = model_.devices(), s = model_.stages();
  group_of_ = group_of;
  w_.assign(at(n) * at(s), 0);
  for (int v = 0; v < n; ++v)
    for (int u = 0; u < n; ++u) w_[at(v) * at(s) + at(group_of[at(u)])] += weight_[at(v) * at(n) + at(u)];
}

void BaselineGain::move(int v, int from, int to) {
  const int n = model_.devices(), s = model_.stages();
  for (int u = 0; u < n; ++u) {
    const double w = weight_[at(u) * at(n) + at(v)];
    w_[at(u) * at(s) + at(from)] -= w;
    w_[at(u) * at(s) + at(to)] += w;
  }
  group_of_[at(v)] = to;
}

void BaselineGain::compute(const std::vector<char>& locked, GainTable& out) const {
  const int n = model_.devices(), s = model_.stages();
  out.clear(s);
  for (int v = 0; v < n; ++v) {
    if (locked[at(v)]) continue;
    const int p = group_of_[at(v)];
    const double* row = &w_[at(v) * at(s)];
    for (int q = 0; q < s; ++q) {
      if (q == p) continue;
      const double gain = row[q] - row[p];
      double& best_pq = out.g_ij[at(p * s + q)];
      if (gain > best_pq) best_pq = gain;
      if (gain > out.g_i[at(p)]) out.g_i[at(p)] = gain, out.move_v[at(p)] = v, out.move_to[at(p)] = q;
    }
  }
}

}  // namespace geotrain
