#include "emu/net/bandwidth_plan.hpp"

#include <fmt/format.h>

#include <set>

#include "emu/net/plan.hpp"
#include "sim/common/units.hpp"
#include "sim/scenario/scenario_bandwidth.hpp"

namespace geotrain::emu {

BandwidthPlan plan_bandwidth_changes(const Scenario& scenario, const ClusterLayout& layout) {
  const BandwidthSchedule schedule = resolve_bandwidth_schedule(scenario);
  const Topology& net = schedule.network();
  BandwidthPlan plan;
  std::set<std::pair<int, int>> touched;
  std::vector<int> ranks;
  for (int r = 0; r < layout.ranks() && r < net.device_count(); ++r) ranks.push_back(r);
  for (const auto& c : schedule.pair_changes(ranks)) {
    const double rate = net.bandwidth_Bps(c.src, c.dst) * c.factor;
    plan.changes.push_back({c.at_s, c.src, c.dst, c.factor, rate, htb_class(layout, "change", c.src, c.dst, rate)});
    touched.insert({c.src, c.dst});
  }
  for (const auto& [s, d] : touched)
    plan.restore.push_back(htb_class(layout, "change", s, d, net.bandwidth_Bps(s, d)));
  return plan;
}

std::string format_bandwidth_plan(const BandwidthPlan& plan) {
  if (plan.changes.empty()) return "";
  std::string out = "# bandwidth changes (seconds after the workers start training; geotrain emulate applies them):\n";
  for (const auto& c : plan.changes)
    out += fmt::format("# at {}: {}->{} x{:.4g} ({})\n{}\n", units::format_duration(c.at_s), c.src, c.dst,
                       c.factor, units::format_bandwidth(c.rate_Bps), c.command.to_string());
  out += "# at the end of the run, back to the configured rates:\n";
  for (const auto& c : plan.restore) out += c.to_string() + "\n";
  return out;
}

}  // namespace geotrain::emu
