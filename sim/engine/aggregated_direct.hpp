#pragma once
// The direct collectives (every member to the root and back, or every member to every other:
// reduce-scatter / all-gather, DT-FM's sharded parameter server) without one SimGrid flow per
// transfer: N^2 flows for an exchange, and N flows re-shared on the root's NIC at each of their
// N ends for a gather.
//
// Members are sorted into classes of hosts that are alike: same zone (region), same NIC
// bandwidth and latency, same entry time (the root alone in its class for rooted kinds). The
// transfers between two classes are one FlowGroup (fluid_groups.hpp): same start (the later of
// the two entries), latency (SimGrid's sharing penalty), bytes and per-flow bound (the route's
// slowest link), each sending NIC carrying as many of them as the other class has members.
// Sharing over those groups is the sharing over the flows: exact under `flow` on the `regions` platform when the collective has
// the links to itself. On the `pairs` platform no two transfers share a link, so each member's
// end is the latest of its transfers' latency + bytes / bandwidth, exact too.
//
// Approximations, said in docs/simulator-models.md: more than 64 classes (entries spread by
// stragglers) -> classes ignore entry times and a class starts at its latest member's entry;
// an exchange's transfers carry the mean chunk (count / N; chunks differ by one byte at most);
// the flows load no SimGrid link (other traffic during the collective does not slow it, nor it
// them); every member leaves once all have entered (a gather's early senders end late, their
// op's split moves, not the root's end); under `tcp`, flow sharing with the window's bound.
#include "sim/engine/sim_context.hpp"

namespace geotrain::engine {

// Whether a collective of `algorithm` over `group_size` members runs here (direct, above
// simulation.aggregate_collectives_above, no rendezvous / buffered sends / bandwidth changes).
bool uses_aggregated_direct(CollectiveAlgorithm algorithm, int group_size,
                            const EngineSettings& settings, bool live_bandwidth);

// Runs it for `rank` (instance: its CollectiveRegistry entry, already entered). Returns the
// bytes this member sent.
double run_aggregated_direct(SimContext& ctx, int rank, const CollectiveOp& op, int instance);

}  // namespace geotrain::engine
