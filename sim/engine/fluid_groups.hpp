#pragma once
// Max-min fair sharing of the network among GROUPS of identical flows, as SimGrid's flow model
// shares it among single flows, for collectives whose flows number N^2 (an all-to-all) or whose
// N flows all cross one link (a parameter server's fan-in): SimGrid re-shares every flow on a
// link each time one of them ends, O(N) per event, O(N^2) per collective.
//
// A group stands for flows that start together, carry the same bytes, see the same route
// latency and per-flow bound, and load every instance of a shared link kind alike: e.g.
// the flows from the hosts of one region to those of another in an all-to-all, where each
// sending host's NIC carries `uses = n_dst` of them and each receiving host's NIC `n_src`. By
// that symmetry every flow of a group gets the same rate, so the sharing over groups, each
// counted `uses` times on a link, is the sharing over the flows themselves. SimGrid's CM02
// (the `flow` model) shares max-min WEIGHTED by route latency (a flow's sharing penalty is its
// route latency: on a common bottleneck, rates are inversely proportional to it), so:
//   - a flow sends nothing for its route latency, then shares;
//   - progressive filling: a level L rises, every unfrozen flow runs at L / penalty; a link kind
//     saturates when sum(uses x L / penalty) reaches its capacity, freezing the groups on it; a
//     group also freezes at its own bound (its route's slowest link, the tcp window);
//   - rates are re-solved whenever a group starts sending or ends.
// O(events x groups x links); no simulation events.
#include <limits>
#include <utility>
#include <vector>

namespace geotrain::engine {

struct FlowGroup {
  double start_s = 0;    // when the flows are posted on both sides
  double latency_s = 0;  // route latency: the flows send from start + latency on
  double bytes = 0;      // per flow
  double bound_Bps = std::numeric_limits<double>::infinity();  // per-flow rate bound
  double penalty = 1;    // SimGrid's sharing penalty: the route latency (1 for a zero latency)
  std::vector<std::pair<int, double>> uses;  // (link kind, flows of this group on one such link)
};

// The per-flow rates of the `sending` groups (indices into groups) at one moment.
std::vector<double> share_rates(const std::vector<FlowGroup>& groups, const std::vector<int>& sending,
                                const std::vector<double>& capacity_Bps);

// When each group's flows end. capacity_Bps[k]: the bandwidth of one link of kind k.
std::vector<double> solve_fluid_groups(const std::vector<FlowGroup>& groups,
                                       const std::vector<double>& capacity_Bps);

}  // namespace geotrain::engine
