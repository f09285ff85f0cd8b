#include "sim/scheduler/cyclic_local_search.hpp"

#include <algorithm>

#include "sim/common/small_math.hpp"

namespace geotrain {

void CyclicLocalSearch::apply(std::vector<int>& state, int v, int to) {
  const int from = state[at(v)];
  if (from == to) return;
  rule_.move(v, from, to);
  state[at(v)] = to;
}

void CyclicLocalSearch::run(std::vector<int>& group_of) {
  locked_v_.assign(at(devices_), 0);
  locked_group_.assign(at(groups_), 0);
  rule_.reset(group_of);
  std::vector<int> state = group_of;
  std::vector<std::vector<int>> states{group_of};
  std::vector<double> sums{0};
  for (int c = 0; c < groups_; ++c) {
    if (!std::any_of(locked_v_.begin(), locked_v_.end(), [](char l) { return !l; })) break;
    const double gain = cycle(state);
    if (moves_.empty()) break;  // nothing movable (the original would fail here)
    states.push_back(state);
    sums.push_back(gain);
    if (std::all_of(locked_group_.begin(), locked_group_.end(), [](char l) { return l != 0; })) break;
  }
  // Best prefix of cycles; like the original, i runs to size-1, so the state after the last
  // cycle is never chosen.
  double best = 0, prefix = 0;
  std::size_t pick = 0;
  for (std::size_t i = 1; i < sums.size(); ++i) {
    prefix += sums[i - 1];
    if (prefix > best) best = prefix, pick = i - 1;
  }
  group_of = states[pick];
}

double CyclicLocalSearch::cycle(std::vector<int>& state) {
  moves_.clear();
  eps_.clear();
  tau_.clear();
  rule_.compute(locked_v_, table_);
  const int s0 = static_cast<int>(std::max_element(table_.g_i.begin(), table_.g_i.end()) - table_.g_i.begin());
  int si = s0;
  for (int step = 0; step < devices_; ++step) {
    int v = table_.move_v[at(si)], to = table_.move_to[at(si)];
    if (v < 0) {  // no unlocked device in si: send the last mover on to S0
      if (moves_.empty()) break;
      v = moves_.back().v, to = s0;
    }
    if (to < 0) break;
    moves_.push_back({v, si, to});
    eps_.push_back(table_.g_i[at(si)]);
    tau_.push_back(table_.g_ij[at(si * groups_ + s0)]);
    apply(state, v, to);
    locked_v_[at(v)] = 1;
    locked_group_[at(to)] = 1;
    si = to;
    if (si == s0) break;
    rule_.compute(locked_v_, table_);
  }
  if (moves_.empty()) return 0;
  double best = 0, prefix = 0;
  std::size_t cut = 0;
  for (std::size_t i = 1; i < eps_.size(); ++i) {
    prefix += eps_[i - 1];
    if (prefix + tau_[i] > best) best = prefix + tau_[i], cut = i;
  }
  for (std::size_t i = moves_.size() - 1; i > cut; --i) apply(state, moves_[i].v, moves_[i].from);
  apply(state, moves_[cut].v, s0);
  return best;
}

}  // namespace geotrain
