#pragma once
// Twin ranks: ranks whose whole run is a copy of another rank's, simulated once.
//
// In a data-parallel swarm most replicas are alike: a gpipe replica whose 16 stages sit in the
// same regions as another's runs the same pipeline at the same times, because on the `regions`
// platform each device has its own NIC and the WAN links are FATPIPE (nothing a replica sends
// shares a resource with another replica's traffic). Only the collective that joins the
// replicas tells them apart: each member leaves it at its own time (its ring neighbours
// differ). So where every rank's run has the shape
//     point-to-point and compute ops (every nonblocking one waited),
//     then ONE blocking collective in an aggregated form (aggregated_ring.hpp, aggregated_direct.hpp),
//     then compute ops only,
// and the run is one iteration, the ranks fall into components (connected by their sends and
// receives: a pipeline replica, or a lone DDP rank) and components into classes of twins: same
// member count, and member by member the same region, ops, peers (by position in the
// component), groups, bytes and compute seconds (stragglers and sampled variance included, so
// ranks with different draws are never twins). One component per class is simulated; each of
// its ranks enters the collective for itself and for its twins at once (the aggregated forms
// plan every member from the entry times alone), and when it finishes, its twins' records are
// its own up to the collective, the collective's plan for their own positions, then their own
// compute ops from there (finish_twins).
//
// Exact, not approximate: a twin's ops would have started and ended at the same times as its
// representative's, up to the collective; the plans are the same computation. The same shape
// also means no aggregated ring's flows can meet other traffic (each rank's sends and receives
// are done before it enters its one collective, and after it only computes), which is what lets
// the ring skip loading links for the twins it does not simulate (sim_context.hpp).
// tests/sim/twin_ranks_test.cpp compares every record with twins on and off.
//
// Off (every rank simulated) for: more than one iteration, the `pairs` platform, host cores,
// bandwidth changes, p2p hubs, dynamic ops, message-level collectives, or simulation.twin_ranks
// false.
#include <string>
#include <vector>

namespace geotrain::engine {

class SimContext;

struct TwinRanks {
  // By rank: the rank simulated for it (itself when simulated). Empty: every rank is simulated.
  std::vector<int> representative;
  // By simulated rank: the ranks it stands for.
  std::vector<std::vector<int>> twins;
  int simulated = 0;
  // Every rank's run has the shape above (true even when no two ranks are twins).
  bool traffic_before_collective = false;
  std::string why_off;  // why every rank is simulated, for the debug log
  bool on() const { return !representative.empty(); }
};

TwinRanks find_twin_ranks(SimContext& ctx);

// Called by a simulated rank once its run is over: fills the records of the ranks it stands
// for, counts their bytes on the links and marks them finished.
void finish_twins(SimContext& ctx, int rank);

}  // namespace geotrain::engine
