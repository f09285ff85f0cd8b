#pragma once
// The point-to-point steps of each collective algorithm a Program can name, for one member of
// the group. The LibTorch worker runs exactly these steps with real tensors (send/recv), and a
// simulator can replay them with bytes only, so the algorithm measured and the algorithm modelled
// cannot drift apart.
//
// Every member gets the same number of steps, and step k pairs up the same transfers on every
// member (idle members get empty steps), so executors may tag transfers by step index.
// Buffers are `count` elements. Within a step every send and receive is posted at once, then the
// step waits for all of them; received data is then summed into (reduce) or copied over (copy)
// the same element range of the local buffer. Averaging (divide by the group size) is the
// executor's business, not the schedule's.
#include <cstddef>
#include <vector>

#include "sim/program/program.hpp"

namespace geotrain {

struct Transfer {
  int peer = 0;  // position in the group (index into Group::ranks), not a Program rank
  std::size_t offset = 0;  // elements
  std::size_t count = 0;
};

struct CollectiveStep {
  std::vector<Transfer> sends;
  std::vector<Transfer> recvs;
  bool reduce = false;  // true: add received ranges into the buffer; false: overwrite
};

// Steps for group position `position` of `group_size` members. `root_position` is the root's
// position for rooted kinds (broadcast, gather, scatter, reduce; also the centre of direct and
// tree all-reduce). Throws InputError for combinations no executor implements (the message
// names kind, algorithm and size), and for algorithm == library (not built from send/recv).
//
// What each kind leaves in the buffer (before averaging):
//   allreduce      every member: the sum
//   reduce_scatter member p: the sum in its own chunk p (chunks: chunk_range), rest unspecified
//   allgather      every member: chunk q from member q
// (chunks: chunk_range, or a butterfly's parts: part_range)
//   reduce, gather root: the sum of all buffers (gradient semantics: the parameter server sums)
//   broadcast, scatter  every member: the root's buffer
// `part_fractions`: a butterfly's part of each position (Group::part_fractions; empty: equal
// parts); the other algorithms ignore it.
std::vector<CollectiveStep> collective_schedule(CollectiveKind kind, CollectiveAlgorithm algorithm,
                                                int group_size, int position, int root_position,
                                                std::size_t count,
                                                const std::vector<double>& part_fractions = {});

// Chunk q of n over `count` elements (floor split); peer = q, the member that owns the chunk.
Transfer chunk_range(std::size_t count, int n, int q);

// Elements this position sends in total (sum over steps), for traffic checks.
std::size_t elements_sent(const std::vector<CollectiveStep>& steps);

}  // namespace geotrain
