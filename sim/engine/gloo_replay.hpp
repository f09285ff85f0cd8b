#pragma once
// Replays Gloo's own collective (sim/program/gloo_algorithms.hpp) for one member: posted sends
// and receives stay in flight until the member waits for them, exactly as Gloo's loop does, and
// every send moves only once the receiver's "ready" notice has crossed the network (Gloo's tcp
// transport rendezvous, rendezvous.hpp). This rendezvous is part of the algorithm, so it applies
// whatever simulation.rendezvous says (that option is about send/recv built collectives).
#include <vector>

#include "sim/engine/sim_context.hpp"
#include "sim/program/gloo_algorithms.hpp"

namespace geotrain::engine {

// Returns the bytes this member sent.
double replay_gloo(SimContext& ctx, int rank, const Group& group,
                   const std::vector<GlooAction>& actions);

}  // namespace geotrain::engine
