#pragma once
// The ring collectives (all-reduce = reduce-scatter + all-gather, each N-1 steps of one chunk per
// member) in O(N) flows instead of O(N^2) messages, with the same timing as the message-level
// ring under the flow model when the ring has its links to itself.
//
// Why it is exact: in the message-level ring, member p's step k starts at s(p,k); its transfer to
// p+1 starts when both have posted (max(s(p,k), s(p+1,k))) and lasts T(p,k) = latency + bytes /
// bandwidth of link p -> p+1; p starts step k+1 when its send and its receive are done:
//   e(p,k)   = max(s(p,k), s(p+1,k)) + T(p,k)
//   s(p,k+1) = max(e(p,k), e(p-1,k))
// a max-plus recurrence over entry times s(p,0). Every member depends on every entry after N/2
// steps, so nobody finishes before the last member enters. The aggregated form therefore waits
// for all members, evaluates the recurrence (O(N x steps) arithmetic, no simulation events),
// and moves each link's total bytes as ONE flow whose rate is capped so that, alone, it ends
// exactly when the link's last chunk would have (e(p, last)). Each member leaves at s(p, K), or
// later when other traffic slowed its flows down (the flows really load the links).
#include <cstddef>
#include <functional>
#include <vector>

#include "sim/engine/sim_context.hpp"

namespace geotrain::engine {

struct RingPlan {
  std::vector<double> finish_s;    // s(p, K): when member p leaves
  std::vector<double> link_end_s;  // e(p, K-1): when link p -> p+1 carries its last chunk
  std::vector<double> send_bytes;  // total bytes p sends to p+1
};

// Seconds a transfer of `bytes` takes alone on link position -> position+1.
using StepSeconds = std::function<double(int position, double bytes)>;

// kind: allreduce, reduce_scatter or allgather; count: elements (bytes) of the buffer.
// An all-reduce of more than `closed_form_above` members is evaluated by ring_walk.hpp in
// O(N x G): every step after the first then moves count / N bytes (the mean chunk; chunks differ
// by at most one byte, which the stepping form counts and this one does not).
RingPlan plan_ring(CollectiveKind kind, const std::vector<double>& entry_s, std::size_t count,
                   const StepSeconds& step_seconds, int closed_form_above = 100'000'000);

// Runs the aggregated ring for `rank` (instance: its CollectiveRegistry entry, already entered).
// Returns the bytes this member sent.
double run_aggregated_ring(SimContext& ctx, int rank, const CollectiveOp& op, int instance);
// The same for a group the Program does not hold (a partial reduce's window): `position` is
// the rank's in `group`, `mailbox_key` keys its load flows apart from other traffic.
double run_aggregated_ring(SimContext& ctx, int rank, const Group& group, int position,
                           CollectiveKind kind, double buffer_bytes, int instance, int mailbox_key);

}  // namespace geotrain::engine
