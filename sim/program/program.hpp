#pragma once
// The Program IR shared by every executor (docs/architecture.md).
//
// A strategy does not simulate anything: it turns (scenario, placement) into a Program, i.e. for
// every rank an ordered list of ops for ONE training iteration. The SimGrid engine (sim/engine)
// and the LibTorch worker (emu/worker) interpret the SAME ops, so predicted and measured timings
// can be compared op by op (an op is identified by (rank, index in that rank's list)).
//
// Semantics every executor must honour:
//  - A rank executes its ops in order. A blocking op finishes before the next starts.
//  - An op with `nonblocking = true` (Send, Recv, Collective) starts and the rank moves on;
//    a later Wait names it and blocks until it is done (DDP buckets overlapping backward).
//  - Send/Recv match by (source rank, destination rank, tag); bytes must agree.
//  - A Collective is entered by every rank of its group, in the same relative order on every
//    rank; `algorithm` says how it moves bytes (the simulator models exactly that algorithm, the
//    emulator runs it: from send/recv, or the library's own when algorithm == library).
//  - A Dynamic op's peers are decided at run time by its rule (partial reduce, gossip).
//  - An op runs in the iterations its `iterations` ranges name (empty: every iteration). An
//    inactive op does nothing and leaves no record in that iteration; a rank may have no active
//    op at all (a DiLoCo worker away for a round). Groups do not change: membership epochs are
//    separate groups whose collectives are active in their epoch. Iterations where the active
//    set is the same form an epoch (program_epochs); validation checks every epoch.
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "sim/common/dtype.hpp"

namespace geotrain {

// outer_optimizer: DiLoCo's outer step (Nesterov SGD on the averaged pseudo-gradient), kept apart
// from `optimizer` (the inner AdamW step) because the worker runs a different optimizer for it.
enum class ComputeKind { forward, backward, optimizer, other, outer_optimizer };
enum class CollectiveKind { allreduce, reduce_scatter, allgather, broadcast, gather, scatter, reduce };
// ring: bandwidth-optimal ring; tree: binary-tree reduce + broadcast; halving_doubling:
// recursive halving/doubling (Rabenseifner); direct: everyone talks to the root (gather/scatter
// parameter server); library: the communication library's built-in algorithm (Gloo's allreduce);
// butterfly: hivemind's all-reduce, every member the owner of a part (Group::part_fractions):
// a direct reduce-scatter into the owners, then a direct all-gather (butterfly_parts.hpp).
enum class CollectiveAlgorithm { ring, tree, halving_doubling, direct, library, butterfly };

const char* to_string(ComputeKind k);
const char* to_string(CollectiveKind k);
const char* to_string(CollectiveAlgorithm a);

using GroupId = int;

// A communication group: its ranks in ring order (rank indices of the Program).
struct Group {
  GroupId id = 0;
  std::string name;  // "dp stage 3", "pipeline 1", "world"
  std::vector<int> ranks;
  // A butterfly's part of each member, by position (sum 1); empty: equal parts.
  std::vector<double> part_fractions = {};
};

struct ComputeOp {
  ComputeKind kind = ComputeKind::forward;
  int stage = 0;        // pipeline stage (0 when there is no pipeline)
  int micro_batch = 0;  // -1 for per-iteration work (optimizer)
  int layer_begin = 0;  // [layer_begin, layer_end) of the model this op computes
  int layer_end = 0;
  double sequences = 0;     // sequences processed (0 for the optimizer)
  double flops = 0;         // floating-point operations
  double memory_bytes = 0;  // bytes of parameters/activations touched (for memory-bound ops)
};

// What a transfer moves. The simulator needs only the bytes; an executor that moves real
// tensors (the emulator's worker, later real/) takes what to send, and where a received buffer
// goes, from here, so it never guesses from the op order. The strategy that writes the op knows.
//  activation / activation_grad: a pipeline stage's output for the next stage / the gradient of
//    that output for the previous stage, of micro-batch `micro_batch` (Send/Recv only);
//  gradients: the stage's gradient (a DDP all-reduce slice, a parameter-server push);
//  weights: the stage's weights (a parameter server's reply, Local SGD's and AD-PSGD's averaging);
//  pseudo_gradient: DiLoCo's round delta, averaged before the outer step (in OuterStep's dtype);
//  state: the sender's training state, fp32 weights then outer momentum (a DiLoCo worker rejoining
//    loads it from a present peer, hivemind's load_state_from_peers; Send/Recv only).
enum class Payload { activation, activation_grad, gradients, weights, pseudo_gradient, state };

// `micro_batch`: the micro-batch an activation or activation gradient belongs to (-1 otherwise).
struct SendOp {
  int peer = 0;
  double bytes = 0;
  int tag = 0;
  Payload payload = Payload::activation;
  int micro_batch = -1;
};

struct RecvOp {
  int peer = 0;
  double bytes = 0;
  int tag = 0;
  Payload payload = Payload::activation;
  int micro_batch = -1;
};

// How a collective compresses what it moves (docs/compression.md; the bytes and the steps:
// sim/program/compression.hpp, the arithmetic: compression_codec.hpp).
//  none: the buffer as it is;
//  int8 / fp4: a ring all-reduce of quantized chunks, `block` elements per fp32 scale; every hop
//    of the reduce-scatter dequantizes, adds its own and requantizes, the all-gather forwards;
//  topk: every member sends the k = ceil(density x elements) largest |values| (fp32 value + int32
//    index) by a ring all-gather, and each sums them all; with `error_feedback` what was not sent
//    is kept by the rank and added to its next buffer (DeMo, SparseLoCo).
// `element_bytes` is the size of one element of the uncompressed buffer: the op's `bytes` stay the
// buffer's (elements = bytes / element_bytes), the wire bytes follow from the kind.
// A compressed collective is blocking and has its codec ops right beside it: the ComputeOp (kind
// other) just before it encodes ("compress int8"), the one just after decodes and averages
// ("decompress int8"); program_validation checks that shape, executors rely on it.
enum class CompressionKind { none, int8, fp4, topk };

struct Compression {
  CompressionKind kind = CompressionKind::none;
  int block = 0;           // int8 / fp4: elements per scale
  double density = 0;      // topk: fraction of the elements sent
  bool error_feedback = false;  // topk: keep what was not sent for the next exchange
  int element_bytes = 4;   // bytes per element of the uncompressed buffer
  bool operator==(const Compression&) const = default;
};

struct CollectiveOp {
  CollectiveKind kind = CollectiveKind::allreduce;
  GroupId group = 0;
  double bytes = 0;  // per-rank buffer size (the full gradient for an all-reduce)
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  int root = 0;  // rank (Program index) of the root for gather/scatter/broadcast/reduce
  int tag = 0;   // distinguishes concurrent collectives on one group (DDP buckets)
  Payload payload = Payload::gradients;  // gradients, weights or pseudo_gradient
  Compression compression = {};          // kind none: the buffer moves as it is
};

// Peers decided at run time. One struct per rule; the decisions themselves live in
// dynamic_rules.hpp so that every executor decides the same way.
//  partial_reduce (SD-Pipe; DiLoCo with an averaging timeout): among `group`, the ranks ready
//    within the window that opens when the first one is ready average `bytes`. The window starts
//    at `window_s` and adapts between `window_min_s` and `window_max_s` (equal: fixed window);
//    after every `full_sync_every` arrivals (0: never) the next window waits for all members.
//  gossip (AD-PSGD): average `bytes` with the partner of a seeded random pairing of `group`
//    (round k of every member uses the same pairing; the same draws in every executor).
// What is averaged is the op's payload: the weights, or DiLoCo's pseudo-gradient.
struct PartialReduceRule {
  double window_s = 0;
  double window_min_s = 0;
  double window_max_s = 0;
  int full_sync_every = 0;
  bool operator==(const PartialReduceRule&) const = default;
};

struct GossipRule {
  std::uint64_t seed = 0;
  bool operator==(const GossipRule&) const = default;
};

// Closed on purpose: executors std::visit it with one handler per rule (sim/common/overloaded.hpp),
// so a new rule does not compile until every executor (and the JSON format) handles it.
using DynamicRule = std::variant<PartialReduceRule, GossipRule>;

// "partial-reduce" or "gossip": for people (labels, logs).
const char* to_string(const DynamicRule& r);
// "partial_reduce" or "gossip": the rule's name in Program JSON and dynamic.csv.
const char* rule_key(const DynamicRule& r);

struct DynamicOp {
  DynamicRule rule = GossipRule{};
  GroupId group = 0;
  double bytes = 0;
  int tag = 0;
  Payload payload = Payload::weights;  // weights or pseudo_gradient
};

// Blocks until the named nonblocking ops (indices in the same rank's list) have finished.
struct WaitOp {
  std::vector<int> ops;
};

// Iterations [begin, end) of a run; end < 0: to the end of the run.
// every > 1: only iterations begin, begin + every, ... of the range (Moshpit's rotating grid
// axis: the groups of axis a average in rounds a, a + d, a + 2d, ...). One Program uses one
// period at most (program validation), so its epochs repeat with it (program_epochs).
struct IterationRange {
  int begin = 0;
  int end = -1;
  int every = 1;
  bool contains(int iteration) const {
    return iteration >= begin && (end < 0 || iteration < end) &&
           (every <= 1 || (iteration - begin) % every == 0);
  }
  bool operator==(const IterationRange&) const = default;
};

struct Op {
  std::variant<ComputeOp, SendOp, RecvOp, CollectiveOp, DynamicOp, WaitOp> body;
  bool nonblocking = false;
  std::string label;  // short and stable: "fwd s2 mb5", "allreduce dp s2", "bucket 3"
  // The iterations in which the op runs; empty = every iteration (DiLoCo churn uses it).
  std::vector<IterationRange> iterations = {};

  template <typename T>
  const T* as() const { return std::get_if<T>(&body); }
  bool active_in(int iteration) const;
};

// What an outer_optimizer op applies (DiLoCo: Nesterov SGD on the averaged pseudo-gradient) and
// the dtype the pseudo-gradient travels in. The strategy that emits outer_optimizer ops sets it;
// executors read it here and never look at the strategy's name.
//
// fragmented (Streaming DiLoCo): the outer state is kept per fragment, a layer range. Each
// fragment's ops are: its pseudo-gradient (a Compute `other` op over the fragment's layers,
// global minus local weights into a buffer of its own), the pseudo-gradient Collective that
// follows it (averaging that buffer, possibly nonblocking while inner steps go on), the
// outer_optimizer op over the same layers (Nesterov on the fragment's global weights), and the
// merge right after it (a Compute `other` op: local = mixing x local + (1 - mixing) x global).
struct OuterStep {
  double learning_rate = 0.7;
  double momentum = 0.9;
  DType wire_dtype = DType::fp32;
  bool fragmented = false;
  double mixing = 0;  // fragmented only: the locally trained weights' share in the merge
};

struct Program {
  std::string strategy;  // for people and results files; executors must not branch on it
  int world_size = 0;
  std::vector<int> device_of_rank;     // which scenario device runs each rank
  std::vector<Group> groups;           // groups[g].id == g
  std::vector<std::vector<Op>> ranks;  // ranks[r] = ops of rank r for one iteration

  // What one iteration achieves, for throughput figures.
  double sequences_per_iteration = 0;
  double tokens_per_iteration = 0;
  double model_flops_per_iteration = 0;  // useful flops (forward + backward), all ranks

  // Why the emulator cannot train this Program yet (empty: it can). The simulator runs every
  // Program; an emulation that could not move the right tensors must be refused, not run wrong.
  std::string not_emulated;
  // Set when the Program has outer_optimizer ops.
  std::optional<OuterStep> outer_step;

  const Group& group(GroupId id) const { return groups.at(static_cast<std::size_t>(id)); }
};

// The op's type as results files name it: compute, send, recv, collective, wait, dynamic.
const char* op_type_name(const Op& op);

// First iterations of the Program's epochs, ascending, starting with 0: every range boundary of
// every op. Within [epochs[k], epochs[k+1]) (the last: to the end of the run) every op is either
// active in all iterations or in none. {0} when no op has ranges.
std::vector<int> program_epochs(const Program& p);
// Whether any op of the Program has iteration ranges (its iterations may differ).
bool has_iteration_ranges(const Program& p);
// The cycle its iterations repeat in: the `every` of its periodic ranges (one per Program,
// program validation), 1 when none is periodic (Moshpit: the grid's axes).
int program_period(const Program& p);
// The Program of one iteration, without ranges: every op inactive in it becomes a no-op (a
// Wait for nothing, label kept) so op indices stay those of `p`.
Program program_in_iteration(const Program& p, int iteration);

}  // namespace geotrain
