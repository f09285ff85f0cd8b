#pragma once
// What Gloo's own collectives do on the wire, for one member of a group: the posted sends and
// receives and the waits between them, in the order Gloo issues them. This is what the
// emulator's worker runs when a collective's algorithm is `library` (or with
// emulation.collectives: gloo), so the simulator replays these lists (sim/engine/gloo_replay)
// instead of an idealised algorithm.
//
// Transcribed from the Gloo that Debian's LibTorch 1.13 links (libgloo 0.0~git20220518.5b14351):
//  - allreduce (gloo/allreduce.cc, ring): the buffer is cut into numSegments segments of at most
//    1 MiB (kMaxSegmentSize), numSegments = roundUp(max(ceil(bytes / 1 MiB), 2 n), n); member p
//    sends to p-1 and receives from p+1; reduce-scatter then allgather, each
//    numSegments - numSegments/n iterations, at most TWO sends and two receives in flight: the
//    loop waits for the transfers of iteration i-2 before it posts those of iteration i. With
//    Gloo's rendezvous (a send moves only after the receiver's "ready" notice arrived) this makes
//    the collective window/RTT-bound on long links: about 2 segments per round trip.
//  - broadcast (gloo/broadcast.cc): binomial tree over virtual ranks (p - root), lowest bit
//    first; a member receives (and waits) from its parent, then posts all its sends at once.
//  - gather / scatter (gloo/gather.cc, scatter.cc): the root posts one receive (send) per member
//    at once and waits for all; members send (receive) once.
//  - allgather (gloo/allgather.cc): ring p -> p+1, each member's chunk cut in two halves,
//    2 (n-1) transfers per member with two in flight.
// Gloo has no reduce_scatter (LibTorch 1.13 refuses it) and its reduce is not used by any
// strategy; both are refused with a message naming them.
#include <cstddef>
#include <vector>

#include "sim/program/program.hpp"

namespace geotrain {

struct GlooAction {
  enum Kind { post_send, post_recv, wait_send, wait_recv };
  Kind kind = post_send;
  int peer = 0;            // group position (post_send / post_recv)
  std::size_t bytes = 0;   // post_send / post_recv
};
// wait_send / wait_recv complete the OLDEST outstanding send / receive of this member (Gloo
// waits on a buffer's completion count; transfers to one peer complete in order).

// Gloo's segment plan of a ring all-reduce (exposed for tests and documentation).
struct GlooRingPlan {
  std::size_t segment_bytes = 0;
  std::size_t segments = 0;           // numSegments, a multiple of the group size
  std::size_t segments_per_rank = 0;  // numSegments / n
  std::size_t iterations = 0;         // transfers posted per phase: segments - segments_per_rank
};
constexpr std::size_t kGlooMaxSegmentBytes = 1024 * 1024;
GlooRingPlan gloo_ring_plan(std::size_t bytes, int group_size, std::size_t element_bytes = 4,
                            std::size_t max_segment_bytes = kGlooMaxSegmentBytes);

// Actions of group position `position` (root_position for rooted kinds). Throws InputError for
// kinds Gloo does not offer here (the message names kind and size).
std::vector<GlooAction> gloo_actions(CollectiveKind kind, int group_size, int position,
                                     int root_position, std::size_t bytes,
                                     std::size_t element_bytes = 4);

// Bytes this member sends (sum of its post_send actions).
std::size_t gloo_bytes_sent(const std::vector<GlooAction>& actions);

}  // namespace geotrain
