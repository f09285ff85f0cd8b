#include "sim/scheduler/cost_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "sim/common/error.hpp"
#include "sim/scheduler/bottleneck_matching.hpp"
#include "sim/scheduler/class_matching.hpp"
#include "sim/scheduler/open_path_tsp.hpp"

namespace geotrain {

CostModel::CostModel(const Topology& network, int stages, int replicas, double gradient_bytes,
                     double activation_bytes)
    : stages_(stages),
      replicas_(replicas),
      devices_(stages * replicas),
      gradient_bytes_(gradient_bytes),
      activation_bytes_(activation_bytes) {
  if (stages < 1 || replicas < 1 || devices_ != network.device_count())
    throw InputError(fmt::format("scheduler: {} stages x {} replicas = {} tasks, but the network has {} devices "
                                 "(DT-FM places one task per device)",
                                 stages, replicas, stages * replicas, network.device_count()));
  const std::size_t n = static_cast<std::size_t>(devices_);
  delay_s_.assign(n * n, 0);
  bandwidth_Bps_.assign(n * n, 0);
  pp_.assign(n * n, 0);
  dp_.assign(n * n, 0);
  for (int i = 0; i < devices_; ++i)
    for (int j = 0; j < devices_; ++j) {
      if (i == j) continue;  // never used: a device does not talk to itself
      const Link l = network.link(i, j);
      if (!(l.bandwidth_Bps > 0))
        throw InputError(fmt::format("scheduler: no bandwidth from device {} to {}", i, j));
      const std::size_t at = index(i, j);
      delay_s_[at] = l.delay_s;
      bandwidth_Bps_[at] = l.bandwidth_Bps;
      pp_[at] = l.delay_s + activation_bytes / l.bandwidth_Bps;
      dp_[at] = 2 * (l.delay_s + gradient_bytes / (l.bandwidth_Bps * replicas));
    }
  detect_classes(network);
}

void CostModel::detect_classes(const Topology& network) {
  const int c = network.region_count();
  if (c > 64) return;
  std::vector<double> cost(static_cast<std::size_t>(c * c), -1), dp(static_cast<std::size_t>(c * c), -1);
  bool dp_uniform = true;
  for (int i = 0; i < devices_; ++i)
    for (int j = 0; j < devices_; ++j) {
      if (i == j) continue;
      const auto pair = static_cast<std::size_t>(network.region_of(i) * c + network.region_of(j));
      double& slot = cost[pair];
      if (slot < 0) slot = pp_[index(i, j)];
      else if (slot != pp_[index(i, j)]) return;  // not uniform: keep device-level matching
      double& dp_slot = dp[pair];
      if (dp_slot < 0) dp_slot = dp_[index(i, j)];
      else if (dp_slot != dp_[index(i, j)]) dp_uniform = false;
    }
  classes_ = c;
  class_pp_ = std::move(cost);
  if (dp_uniform) class_dp_ = std::move(dp);
  for (int i = 0; i < devices_; ++i) class_of_.push_back(network.region_of(i));
}

// group_dp_cost_s on the class table, with the same additions in the same order (so the same
// bits): c_i = sum over members j != i, in member order, of dp(class i, class j); skipping j == i
// is adding +0.0, which leaves a non-negative sum unchanged. Two members next to each other in
// the group with the same class skip the same addend sequence, so only the first of each run of
// equal classes is summed. Four sums run side by side: each is a serial chain of additions,
// and interleaving them hides the adder's latency.
double CostModel::group_dp_by_class(const std::vector<int>& group) const {
  thread_local std::vector<std::uint8_t> seq;
  const std::size_t k = group.size();
  seq.resize(k);
  for (std::size_t j = 0; j < k; ++j) seq[j] = static_cast<std::uint8_t>(class_of_[static_cast<std::size_t>(group[j])]);
  const auto c = static_cast<std::size_t>(classes_);
  double worst = 0;
  std::size_t pending[4];
  int count = 0;
  auto flush = [&] {
    if (count == 0) return;
    for (int t = count; t < 4; ++t) pending[t] = pending[0];  // pad with a repeat: same result
    const std::size_t p0 = pending[0], p1 = pending[1], p2 = pending[2], p3 = pending[3];
    const double* r0 = &class_dp_[seq[p0] * c];
    const double* r1 = &class_dp_[seq[p1] * c];
    const double* r2 = &class_dp_[seq[p2] * c];
    const double* r3 = &class_dp_[seq[p3] * c];
    double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const std::size_t b = seq[j];
      a0 += j == p0 ? 0.0 : r0[b];
      a1 += j == p1 ? 0.0 : r1[b];
      a2 += j == p2 ? 0.0 : r2[b];
      a3 += j == p3 ? 0.0 : r3[b];
    }
    worst = std::max({worst, a0, a1, a2, a3});
    count = 0;
  };
  for (std::size_t p = 0; p < k; ++p) {
    if (p > 0 && seq[p] == seq[p - 1]) continue;
    pending[count++] = p;
    if (count == 4) flush();
  }
  flush();
  return worst;
}

double CostModel::group_dp_cost_s(const std::vector<int>& group) const {
  if (!class_dp_.empty()) return group_dp_by_class(group);
  double worst = 0;
  for (int i : group) {
    double c = 0;
    for (int j : group)
      if (j != i) c += dp_[index(i, j)];
    worst = std::max(worst, c);
  }
  return worst;
}

double CostModel::dp_cost_s(const Partition& groups) const {
  double worst = 0;
  for (const auto& g : groups) worst = std::max(worst, group_dp_cost_s(g));
  return worst;
}

double CostModel::group_pair_cost_s(const std::vector<int>& from, const std::vector<int>& to,
                                    std::vector<int>* match) const {
  thread_local std::vector<double> cost;
  thread_local BottleneckMatching matching;
  if (!match && classes_ > 0) {
    thread_local ClassMatching by_class;
    thread_local std::vector<int> count_x, count_y;
    count_x.assign(static_cast<std::size_t>(classes_), 0);
    count_y.assign(static_cast<std::size_t>(classes_), 0);
    for (int v : from) ++count_x[static_cast<std::size_t>(class_of_[static_cast<std::size_t>(v)])];
    for (int v : to) ++count_y[static_cast<std::size_t>(class_of_[static_cast<std::size_t>(v)])];
    const double value = by_class.solve(class_pp_, classes_, count_x, count_y);
    if (value >= 0) return value;
  }
  const std::size_t k = from.size();
  cost.resize(k * k);
  for (std::size_t r = 0; r < k; ++r)
    for (std::size_t c = 0; c < k; ++c) cost[r * k + c] = pp_[index(from[r], to[c])];
  return matching.solve(cost.data(), static_cast<int>(k), match);
}

CostBreakdown CostModel::evaluate(const Partition& groups) const {
  thread_local std::vector<double> between;
  thread_local OpenPathTsp tsp;
  const std::size_t s = groups.size();
  between.assign(s * s, 0);
  // As in the reference: one matching per unordered pair, mirrored.
  for (std::size_t x = 0; x < s; ++x)
    for (std::size_t y = x + 1; y < s; ++y)
      between[x * s + y] = between[y * s + x] = group_pair_cost_s(groups[x], groups[y]);
  OpenPath path = tsp.solve(between, static_cast<int>(s));
  CostBreakdown out;
  out.dp_cost_s = dp_cost_s(groups);
  out.pp_cost_s = 2 * path.cost;
  out.total_cost_s = out.dp_cost_s + out.pp_cost_s;
  out.path = std::move(path.order);
  return out;
}

Assignment CostModel::realise(const Partition& groups, const CostBreakdown& cost) const {
  Assignment a{stages_, replicas_,
               std::vector<std::vector<int>>(static_cast<std::size_t>(replicas_), std::vector<int>(static_cast<std::size_t>(stages_)))};
  // slot[r] = index inside the current stage's group of replica r's device.
  std::vector<int> slot(static_cast<std::size_t>(replicas_));
  for (int r = 0; r < replicas_; ++r) slot[static_cast<std::size_t>(r)] = r;
  std::vector<int> match;
  for (int st = 0; st < stages_; ++st) {
    const auto& g = groups[static_cast<std::size_t>(cost.path[static_cast<std::size_t>(st)])];
    for (int r = 0; r < replicas_; ++r)
      a.device_of[static_cast<std::size_t>(r)][static_cast<std::size_t>(st)] = g[static_cast<std::size_t>(slot[static_cast<std::size_t>(r)])];
    if (st + 1 == stages_) break;
    const int x = cost.path[static_cast<std::size_t>(st)], y = cost.path[static_cast<std::size_t>(st + 1)];
    // Match in the orientation the score used (lower group index as rows), then follow it.
    const auto& lo = groups[static_cast<std::size_t>(std::min(x, y))];
    const auto& hi = groups[static_cast<std::size_t>(std::max(x, y))];
    group_pair_cost_s(lo, hi, &match);
    std::vector<int> next_of(static_cast<std::size_t>(replicas_));
    for (int r = 0; r < replicas_; ++r) {
      const int c = match[static_cast<std::size_t>(r)];
      if (x < y) next_of[static_cast<std::size_t>(r)] = c;
      else next_of[static_cast<std::size_t>(c)] = r;
    }
    for (auto& sl : slot) sl = next_of[static_cast<std::size_t>(sl)];
  }
  return a;
}

CostBreakdown CostModel::evaluate_fixed(const Assignment& a) const {
  CostBreakdown out;
  out.dp_cost_s = dp_cost_s(a.stage_groups());
  double path = 0;
  for (int st = 0; st + 1 < a.stages; ++st) {
    double worst = 0;
    for (int r = 0; r < a.replicas; ++r) worst = std::max(worst, pp_[index(a.device(r, st), a.device(r, st + 1))]);
    path += worst;
  }
  out.pp_cost_s = 2 * path;
  out.total_cost_s = out.dp_cost_s + out.pp_cost_s;
  for (int st = 0; st < a.stages; ++st) out.path.push_back(st);
  return out;
}

Partition CostModel::partition_of(const std::vector<int>& group_of) const {
  Partition groups(static_cast<std::size_t>(stages_));
  for (int v = 0; v < devices_; ++v) groups[static_cast<std::size_t>(group_of[static_cast<std::size_t>(v)])].push_back(v);
  return groups;
}

}  // namespace geotrain
