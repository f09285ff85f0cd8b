#include "sim/scheduler/dtfm_gain.hpp"

#include <algorithm>

#include "sim/common/small_math.hpp"

namespace geotrain {

void DtfmGain::reset(const std::vector<int>& group_of) {
  group_of_ = group_of;
  members_.assign(at(model_.stages()), {});
  for (int v = 0; v < model_.devices(); ++v) members_[at(group_of[at(v)])].push_back(v);
  own_.assign(at(model_.devices()), kInf);
  for (int v = 0; v < model_.devices(); ++v) refresh_own(v);
}

void DtfmGain::refresh_own(int v) {
  double best = kInf;
  for (int u : members_[at(group_of_[at(v)])])
    if (u != v) best = std::min(best, model_.pp_pair_s(v, u));
  own_[at(v)] = best;
}

void DtfmGain::move(int v, int from, int to) {
  auto& old_members = members_[at(from)];
  old_members.erase(std::find(old_members.begin(), old_members.end(), v));
  // Members of `from` lose v as a neighbour: only those whose minimum was v change.
  for (int u : old_members)
    if (model_.pp_pair_s(u, v) <= own_[at(u)]) refresh_own(u);
  for (int u : members_[at(to)]) own_[at(u)] = std::min(own_[at(u)], model_.pp_pair_s(u, v));
  members_[at(to)].push_back(v);
  group_of_[at(v)] = to;
  refresh_own(v);
}

void DtfmGain::compute(const std::vector<char>& locked, GainTable& out) const {
  const int s = model_.stages();
  out.clear(s);
  for (int p = 0; p < s; ++p) {
    int v = -1;
    for (int u : members_[at(p)])
      if (!locked[at(u)] && (v < 0 || own_[at(u)] < own_[at(v)] || (own_[at(u)] == own_[at(v)] && u < v))) v = u;
    if (v < 0) continue;
    out.move_v[at(p)] = v;
    for (int q = 0; q < s; ++q) {
      if (q == p) continue;
      const auto& mq = members_[at(q)];
      double sum = 0;
      for (int u : mq) sum += model_.pp_pair_s(v, u);
      const double avg = mq.empty() ? 0 : sum / static_cast<double>(mq.size());
      const double gain = avg - own_[at(v)];
      out.g_ij[at(p * s + q)] = gain;
      if (gain > out.g_i[at(p)]) out.g_i[at(p)] = gain, out.move_to[at(p)] = q;
    }
  }
}

}  // namespace geotrain
