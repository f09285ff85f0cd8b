#include "sim/strategies/butterfly_groups.hpp"

#include <algorithm>
#include <set>

#include "sim/common/small_math.hpp"
#include "sim/program/butterfly_parts.hpp"

namespace geotrain {

namespace {

double member_bandwidth(const Scenario& s, const Program& p, const Group& g, std::size_t i) {
  const int d = p.device_of_rank[at(g.ranks[i])];
  double sum = 0;
  for (std::size_t j = 0; j < g.ranks.size(); ++j) {
    if (j == i) continue;
    const int e = p.device_of_rank[at(g.ranks[j])];
    sum += std::min(s.network.bandwidth_Bps(d, e), s.network.bandwidth_Bps(e, d));
  }
  return sum / static_cast<double>(g.ranks.size() - 1);
}

}  // namespace

void assign_butterfly_parts(Program& program, const Scenario& scenario) {
  std::set<GroupId> butterflies;
  for (const auto& ops : program.ranks)
    for (const Op& op : ops)
      if (const auto* c = op.as<CollectiveOp>(); c && c->algorithm == CollectiveAlgorithm::butterfly)
        butterflies.insert(c->group);
  if (butterflies.empty()) return;
  const auto it = scenario.strategy.params.find("butterfly_parts");
  const PartRule rule = it == scenario.strategy.params.end()
                            ? PartRule::equal
                            : *part_rule_named(std::get<std::string>(it->second));
  for (GroupId id : butterflies) {
    Group& g = program.groups[at(id)];
    if (g.ranks.size() < 2) continue;
    std::vector<double> bandwidths;
    for (std::size_t i = 0; i < g.ranks.size(); ++i)
      bandwidths.push_back(member_bandwidth(scenario, program, g, i));
    g.part_fractions = butterfly_fractions(bandwidths, rule);
  }
}

}  // namespace geotrain
