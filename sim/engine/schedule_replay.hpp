#pragma once
// Replays a collective schedule (sim/program/collective_schedule.hpp) for one member: in each
// step every send and receive is posted at once, then the member waits for all of them. A step's
// transfer starts when both its sender and its receiver have reached that step, as with real
// send/recv. 2(N-1) messages per member for a ring all-reduce: O(N^2) in all.
#include <vector>

#include "sim/engine/sim_context.hpp"
#include "sim/program/collective_schedule.hpp"

namespace geotrain::engine {

// Returns the bytes this member sent. Bytes are 1-byte elements of the schedule.
double replay_schedule(SimContext& ctx, int rank, const Group& group,
                       const std::vector<CollectiveStep>& steps);

}  // namespace geotrain::engine
