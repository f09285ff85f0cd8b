#include "sim/scheduler/cost_model.hpp"

#include <fmt/format.h>

#include <algorithm>

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
  std::vector<double> cost(static_cast<std::size_t>(c * c), -1);
  for (int i = 0; i < devices_; ++i)
    for (int j = 0; j < devices_; ++j) {
      if (i == j) continue;
      double& slot = cost[static_cast<std::size_t>(network.region_of(i) * c + network.region_of(j))];
      if (slot < 0) slot = pp_[index(i, j)];
      else if (slot != pp_[index(i, j)]) return;  // not uniform: keep device-level matching
    }
  classes_ = c;
  class_pp_ = std::move(cost);
  for (int i = 0; i < devices_; ++i) class_of_.push_back(network.region_of(i));
}

double CostModel::group_dp_cost_s(const std::vector<int>& group) const {
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
