#pragma once
// Closed-form times of collectives and iterations, the yardsticks the simulator is tested against
// (tests/program, tests/engine). Every formula assumes the flow model with latency + size /
// bandwidth per message (SimGrid CM02 without TCP-gamma, see docs/simulator-models.md), links per ordered
// pair that flows do not share (matrix/FATPIPE networks, full duplex), and the step structure of
// collective_schedule.hpp: within a step a member posts all its sends and receives, a transfer
// starts once both sides have posted it, and the member leaves the step when all of them are done.
// Reductions and copies take no time. Sizes are real numbers (no rounding to elements).
#include <functional>
#include <vector>

namespace geotrain {

struct LinkTime {
  double latency_s = 0;
  double bandwidth_Bps = 1;
  double transfer_s(double bytes) const { return latency_s + bytes / bandwidth_Bps; }
};

// Link between group positions (from, to).
using LinkOf = std::function<LinkTime(int from, int to)>;

// --- ring (chunk = S / N, 2(N-1) steps for all-reduce, N-1 for reduce-scatter / all-gather) ---
// hops[i] = link from ring position i to i+1 (mod N). A step ends for a member when its send and
// its receive are done, and the next step's transfer on a hop waits for both of its ends, so after
// a few steps every member is in step with the slowest hop: each step lasts
// max_i (L_i + chunk / B_i) and the ring takes steps x that (exact under the assumptions above).
// Uniform hops: 2(N-1)/N x S/B + 2(N-1) x L. N = 1: 0.
double ring_allreduce_time(const std::vector<LinkTime>& hops, double bytes);
double ring_reduce_scatter_time(const std::vector<LinkTime>& hops, double bytes);  // N-1 steps
double ring_allgather_time(const std::vector<LinkTime>& hops, double bytes);       // N-1 steps
double ring_allreduce_time(int n, double bytes, LinkTime link);
// Bytes each member sends in a ring all-reduce: 2(N-1)/N x S.
double ring_allreduce_bytes_per_rank(int n, double bytes);

// --- direct through a root (parameter server; gather = reduce to the root) -------------------
// Every other member sends the whole buffer to the root at once (or receives it from the root);
// flows do not share a link, so the slowest pair decides: max_i (L_i + S / B_i).
double direct_gather_time(int n, int root, double bytes, const LinkOf& link);
double direct_scatter_time(int n, int root, double bytes, const LinkOf& link);
// Direct reduce-scatter or all-gather (the sharded parameter server): one step in which every
// member exchanges an S/N chunk with every other member at once: max over pairs of
// (L + S/N / B). A sharded sync is a reduce-scatter then an all-gather: twice that on symmetric
// links. A direct all-reduce is direct_gather_time + direct_scatter_time.
double direct_exchange_time(int n, double bytes, const LinkOf& link);
// hivemind's butterfly all-reduce with part fractions f (one per position): a direct
// reduce-scatter (p sends f_q S to each q), then a direct all-gather (p sends f_p S to each q);
// a transfer of the second step starts when both ends have finished the first, and every link
// is its own (no sharing): max_p of the later of its step-2 transfers.
double butterfly_allreduce_time(const std::vector<double>& fractions, double bytes, const LinkOf& link);
// The same when all flows cross one shared root NIC of bandwidth B (star network, fair sharing):
// L + (N-1) x S / B.
double direct_gather_time_shared_nic(int n, double bytes, LinkTime nic);

// --- binomial tree all-reduce (reduce to the root, then broadcast; whole buffer each step) ----
// Computed step by step from the schedule's recurrence; uniform links give
// 2 x ceil(log2 N) x (L + S/B).
double tree_allreduce_time(int n, int root, double bytes, const LinkOf& link);

// --- halving-doubling (Rabenseifner), N a power of two ----------------------------------------
// log2 N exchange steps of S/2, S/4, ..., S/N with partners at distance N/2, N/4, ..., 1, then the
// mirror image. Pairs exchange both ways at once; a step starts when both partners are ready.
// Uniform: 2 log2(N) x L + 2 (N-1)/N x S/B. Throws std::invalid_argument if N is not a power of 2.
double halving_doubling_allreduce_time(int n, double bytes, const LinkOf& link);

// --- pipelines -------------------------------------------------------------------------------
// A tandem line of servers with constant service times and unbounded buffers, all M jobs ready at
// the first server at time 0: job M leaves the last server at sum(t) + (M-1) x max(t).
double tandem_makespan(const std::vector<double>& service_s, int jobs);

// GPipe (all forwards, then all backwards) over S stages with M micro-batches. Stage s's forward
// and backward take forward_s[s], backward_s[s]; an activation transfer from s to s+1 takes
// activation_link_s[s], a gradient transfer from s+1 back to s takes gradient_link_s[s]. Receives
// are posted in advance and each direction of a link carries one transfer at a time (FIFO), as
// the gpipe strategy's Programs and the engine do. Returns, per stage, the time its pipeline work
// ends: its last backward, and for s > 0 the delivery of its last gradient to s-1.
// Uniform stages with transfers shorter than compute: stage 0 (the last to finish) ends at
// (M + S - 1) x (t_f + t_b) + 2 (S - 1) x c after the start.
std::vector<double> gpipe_stage_end_times(const std::vector<double>& forward_s,
                                          const std::vector<double>& backward_s,
                                          const std::vector<double>& activation_link_s,
                                          const std::vector<double>& gradient_link_s,
                                          int micro_batches);
// Iteration = max over stages of (pipeline end + data-parallel sync + optimizer).
double gpipe_iteration_time(const std::vector<double>& stage_end_s,
                            const std::vector<double>& sync_s,
                            const std::vector<double>& optimizer_s);

// --- DDP gradient buckets overlapping backward ------------------------------------------------
// backward_s[k]: backward compute finishing bucket k (in bucket order, the first one after all
// earlier compute of the iteration, which is included in backward_s[0]); allreduce_s[k]: bucket
// k's all-reduce alone on the network. With all-reduces run one at a time in issue order (one
// communication stream, as PyTorch DDP), the last one ends at the exact FIFO recurrence
//   ready_k = sum_{j<=k} backward_s[j],  end_k = max(ready_k, end_{k-1}) + allreduce_s[k].
double bucketed_fifo_time(const std::vector<double>& backward_s,
                          const std::vector<double>& allreduce_s);
struct OverlapBounds {
  double lower_s =
      0;  // max(all compute + last bucket's all-reduce, first bucket ready + all all-reduces)
  double upper_s = 0;  // no overlap at all: all compute + all all-reduces
};
OverlapBounds bucketed_overlap_bounds(const std::vector<double>& backward_s,
                                      const std::vector<double>& allreduce_s);

}  // namespace geotrain
