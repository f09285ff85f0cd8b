#pragma once
// What one rank's Program means for the worker, derived once before training: which pipeline
// stage and layers it owns, which data-parallel replica it is part of (and so which shard of
// each global batch it reads), and what every Send/Recv carries.
//
// Conventions the Program builders and the worker share (see README.md):
//  - A rank's Compute ops all name one stage; its layers are the union of their ranges. Stage 0
//    also owns the embeddings, the last stage the final layer norm, LM head and loss.
//  - Ranks joined by activation Send/Recv form one pipeline = one data-parallel replica; replicas
//    are numbered by their lowest rank. Replica r of R reads sequences r, r+R, r+2R, ... of each
//    global batch (DistributedSampler without shuffling), split into micro-batches in the
//    order of their ids.
//  - What a Send/Recv carries is its payload (Payload, sim/program/program.hpp), with the
//    micro-batch of an activation or activation gradient. A gradients push followed by the
//    rank's own optimizer op (HetPipe's local update) leaves the gradients for that step
//    (keeps_gradients).
//  - A rank may pass its micro-batches several times per iteration (DiLoCo's H inner steps):
//    pass k of iteration i reads the data of local step i x passes + k.
#include <vector>

#include "sim/program/program.hpp"

namespace geotrain {

struct MicroBatchSlice {
  int id = 0;
  int sequences = 0;
  int offset = 0;  // first sequence within the replica's shard
};

struct RankPlan {
  int rank = 0;
  int stage = 0;
  int stages = 1;
  int replica = 0;
  int replicas = 1;
  int layer_begin = 0;  // [layer_begin, layer_end): blocks this rank owns
  int layer_end = 0;
  int replica_sequences = 0;  // per iteration
  int global_sequences = 0;   // per pass, all replicas
  int passes = 1;             // passes over the micro-batches per iteration (DiLoCo: H)
  std::vector<MicroBatchSlice> micro_batches;  // ascending id
  std::vector<Payload> carries;           // per op: a Send/Recv's payload (meaningless for others)
  std::vector<int> carries_micro_batch;  // per op: micro-batch id of what a Send/Recv carries
  std::vector<bool> keeps_gradients;     // per op: a push whose gradients a local update still uses

  bool first_stage() const { return stage == 0; }
  bool last_stage() const { return stage == stages - 1; }
  const MicroBatchSlice& micro_batch(int id) const;  // throws if unknown
};

// Gradient collectives take successive slices of the stage's flat gradient (backward order).
// reduce_scatter, gather and reduce leave a slice half-done: the allgather / scatter / broadcast
// that follows finishes it, and only then does the next collective take the next slice.
inline bool completes_gradient_slice(CollectiveKind k) {
  return k == CollectiveKind::allreduce || k == CollectiveKind::allgather ||
         k == CollectiveKind::scatter || k == CollectiveKind::broadcast;
}

// DiLoCo: per op of a rank, whether it is in the pseudo-gradient phase: from the pseudo-gradient
// op (a Compute `other` op followed by an outer_optimizer op with no optimizer op between) up to
// that outer_optimizer op. The phase's first op computes the pseudo-gradient; what collectives
// and Dynamic ops move is their payload, not their place.
std::vector<bool> pseudo_gradient_phase(const std::vector<Op>& ops);

// Throws InputError naming the rank and op for Programs that break the conventions above.
RankPlan make_rank_plan(const Program& program, int rank, int model_layers);

}  // namespace geotrain
