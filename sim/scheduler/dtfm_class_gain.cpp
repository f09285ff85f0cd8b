#include "sim/scheduler/dtfm_class_gain.hpp"

#include <algorithm>

#include "sim/common/small_math.hpp"

namespace geotrain {

DtfmClassGain::DtfmClassGain(const CostModel& model) : model_(model), c_(model.classes()) {
  for (int v = 0; v < model.devices(); ++v) cls_.push_back(static_cast<std::uint8_t>(model.class_of(v)));
  cost_.resize(at(c_ * c_));
  into_.resize(at(c_ * c_));
  for (int a = 0; a < c_; ++a)
    for (int b = 0; b < c_; ++b) cost_[at(a * c_ + b)] = into_[at(b * c_ + a)] = model.class_pp_s(a, b);
}

double DtfmClassGain::own(int v) const {
  return own_[at(group_of_[at(v)] * c_ + cls_[at(v)])];
}

void DtfmClassGain::reset(const std::vector<int>& group_of) {
  const int s = model_.stages();
  group_of_ = group_of;
  members_.assign(at(s), {});
  count_.assign(at(s * c_), 0);
  own_.assign(at(s * c_), kInf);
  prefix_.assign(at(s), {});
  avg_.assign(at(s * c_), 0);
  candidate_.assign(at(s), -1);
  candidate_stale_.assign(at(s), 1);
  for (int v = 0; v < model_.devices(); ++v) {
    const int g = group_of[at(v)];
    members_[at(g)].push_back(v);
    ++count_[at(g * c_ + cls_[at(v)])];
  }
  for (int g = 0; g < s; ++g) refresh_own(g), resum_from(g, 0);
}

// own of a class-a member: the cheapest class b with a member other than itself (min is exact,
// so this equals DtfmGain's minimum over the members).
void DtfmClassGain::refresh_own(int g) {
  const int* count = &count_[at(g * c_)];
  for (int a = 0; a < c_; ++a) {
    double best = kInf;
    for (int b = 0; b < c_; ++b)
      if (count[b] - (a == b ? 1 : 0) > 0) best = std::min(best, cost_[at(a * c_ + b)]);
    own_[at(g * c_ + a)] = best;
  }
}

void DtfmClassGain::move(int v, int from, int to) {
  auto& old_members = members_[at(from)];
  const auto it = std::find(old_members.begin(), old_members.end(), v);
  const auto position = static_cast<std::size_t>(it - old_members.begin());
  old_members.erase(it);
  members_[at(to)].push_back(v);
  group_of_[at(v)] = to;
  --count_[at(from * c_ + cls_[at(v)])];
  ++count_[at(to * c_ + cls_[at(v)])];
  refresh_own(from);
  refresh_own(to);
  resum_from(from, position);
  resum_from(to, members_[at(to)].size() - 1);
  candidate_stale_[at(from)] = candidate_stale_[at(to)] = 1;
}

// Rows i+1.. of g's running sums from row i: row r + 1 = row r + the addends of member r, for
// every class at once. This is exactly DtfmGain's loop (from 0, in member order) for each class.
void DtfmClassGain::resum_from(int g, std::size_t i) {
  const auto& members = members_[at(g)];
  auto& prefix = prefix_[at(g)];
  const auto c = at(c_);
  prefix.resize((members.size() + 1) * c);
  if (i == 0) std::fill(prefix.begin(), prefix.begin() + static_cast<std::ptrdiff_t>(c), 0.0);
  for (std::size_t r = i; r < members.size(); ++r) {
    const double* before = &prefix[r * c];
    const double* add = &into_[at(cls_[at(members[r])]) * c];
    double* after = &prefix[(r + 1) * c];
    for (std::size_t a = 0; a < c; ++a) after[a] = before[a] + add[a];
  }
  const double* sum = &prefix[members.size() * c];
  for (std::size_t a = 0; a < c; ++a)
    avg_[at(g) * c + a] = members.empty() ? 0 : sum[a] / static_cast<double>(members.size());
}

void DtfmClassGain::compute(const std::vector<char>& locked, GainTable& out) const {
  const int s = model_.stages();
  out.clear(s);
  for (int p = 0; p < s; ++p) {
    int v = candidate_[at(p)];
    if (candidate_stale_[at(p)] || (v >= 0 && locked[at(v)])) {
      v = -1;
      for (int u : members_[at(p)])
        if (!locked[at(u)] && (v < 0 || own(u) < own(v) || (own(u) == own(v) && u < v))) v = u;
      candidate_[at(p)] = v;
      candidate_stale_[at(p)] = 0;
    }
    if (v < 0) continue;
    out.move_v[at(p)] = v;
    const double own_v = own(v);
    for (int q = 0; q < s; ++q) {
      if (q == p) continue;
      const double gain = avg_[at(q * c_ + cls_[at(v)])] - own_v;
      out.g_ij[at(p * s + q)] = gain;
      if (gain > out.g_i[at(p)]) out.g_i[at(p)] = gain, out.move_to[at(p)] = q;
    }
  }
}

}  // namespace geotrain
