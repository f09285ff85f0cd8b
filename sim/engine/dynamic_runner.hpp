#pragma once
// Runs the Program's Dynamic ops (program.hpp) in simulated time, with the rules of
// sim/program/dynamic_rules.hpp that the emulator's worker uses too:
//  gossip         -> round k of a rank (its k-th run of that op) pairs it by
//                    gossip_pairing(seed, k, group size); the two exchange `bytes` at once
//                    (one flow each way) and the op ends when both flows have arrived; a rank
//                    left out of the pairing finishes at once.
//  partial_reduce -> one coordinator per (group, tag) with a PartialReduceWindow: a member
//                    entering the op is `ready`; the window closes at its deadline or when
//                    everyone is in (SimGrid condition variable with a timeout on the
//                    simulated clock); the members of the closed window then run a ring
//                    all-reduce of `bytes` among themselves (collective_schedule steps
//                    replayed message by message, as for Collective ops; the aggregated
//                    ring above simulation.aggregate_collectives_above members). After its last
//                    round of the run a member leaves the window (nobody waits for it).
// Waiting for partners or for the window counts as idle in the op's record. Every run's
// decision (who averaged with whom, and when the rank learnt it) is kept for dynamic.csv, as
// the emulator's worker records it (emu/worker/dynamic_ops.cpp).
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/engine/op_recorder.hpp"
#include "sim/program/dynamic_rules.hpp"
#include "sim/program/program.hpp"
#include "sim/results/dynamic_csv.hpp"

namespace geotrain::engine {

class SimContext;

class DynamicRunner {
 public:
  explicit DynamicRunner(SimContext& ctx);
  ~DynamicRunner();
  DynamicRunner(const DynamicRunner&) = delete;
  DynamicRunner& operator=(const DynamicRunner&) = delete;

  // Blocks the calling rank actor until its part of the op (op `index` of the rank's Program,
  // in iteration `iteration`) is done.
  void run(int rank, int iteration, int index, const DynamicOp& op, OpRecord& record);

  // Every run's decision, in the order they were made (dynamic.csv sorts them); moved out once
  // the run is over (a long gossip run holds one row per rank and round).
  std::vector<results::DynamicRow> take_decisions() { return std::move(decisions_); }

 private:
  struct Window;
  struct FormedWindow;
  // What one run decided: the rank's round of the op, the ranks averaging (ascending, the rank
  // itself included; shared by a window's members) and when the rank learnt it.
  struct Decision {
    std::int64_t round = 0;
    std::shared_ptr<const std::vector<int>> members;
    double decided_s = 0;
  };
  Decision gossip(int rank, const DynamicOp& op, const GossipRule& rule, OpRecord& record);
  const std::vector<int>& pairing(const DynamicOp& op, const GossipRule& rule, std::int64_t round,
                                  int members);
  // The pair's copies of op.bytes, both ways at once.
  void exchange(int rank, int partner, const DynamicOp& op, OpRecord& record);
  Decision partial_reduce(int rank, const DynamicOp& op, OpRecord& record);
  std::shared_ptr<const FormedWindow> await_window(int rank, const DynamicOp& op);
  void store_message(int from_rank, int to_rank, bool lone);
  Window& window(const DynamicOp& op);

  SimContext& ctx_;
  std::map<std::tuple<int, GroupId, int>, std::int64_t> gossip_round_;  // (rank, group, tag)
  // (group, tag) -> round -> partner position by position (the last rounds drawn)
  std::map<std::pair<GroupId, int>, std::map<std::int64_t, std::vector<int>>> pairings_;
  // One full sync at a time over all partial-reduce windows (dynamic_rules.hpp); declared
  // before the windows, which release it when destroyed.
  FullSyncBaton full_sync_baton_;
  std::map<std::pair<GroupId, int>, std::unique_ptr<Window>> windows_;
  // Partial-reduce rounds per (rank, group, tag): done so far, and in the whole run (a rank
  // leaves the window after its last one).
  std::map<std::tuple<int, GroupId, int>, std::int64_t> partial_done_, partial_total_;
  std::vector<results::DynamicRow> decisions_;
};

}  // namespace geotrain::engine
