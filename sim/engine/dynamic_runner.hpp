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
//                    replayed message by message, as for Collective ops). After its last
//                    round of the run a member leaves the window (nobody waits for it).
// Waiting for partners or for the window counts as idle in the op's record.
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "sim/engine/op_recorder.hpp"
#include "sim/program/dynamic_rules.hpp"
#include "sim/program/program.hpp"

namespace geotrain::engine {

class SimContext;

class DynamicRunner {
 public:
  explicit DynamicRunner(SimContext& ctx);
  ~DynamicRunner();
  DynamicRunner(const DynamicRunner&) = delete;
  DynamicRunner& operator=(const DynamicRunner&) = delete;

  // Blocks the calling rank actor until its part of the op is done.
  void run(int rank, const DynamicOp& op, OpRecord& record);

  // Partial-reduce groups formed so far, per (group, tag), for results and tests.
  struct Round {
    double closed_s;
    std::vector<int> ranks;
  };
  const std::map<std::pair<GroupId, int>, std::vector<Round>>& rounds() const { return rounds_; }

 private:
  struct Window;
  void gossip(int rank, const DynamicOp& op, const GossipRule& rule, OpRecord& record);
  void partial_reduce(int rank, const DynamicOp& op, OpRecord& record);
  Window& window(const DynamicOp& op);

  SimContext& ctx_;
  std::map<std::tuple<int, GroupId, int>, std::int64_t> gossip_round_;  // (rank, group, tag)
  std::map<std::pair<GroupId, int>, std::unique_ptr<Window>> windows_;
  // Partial-reduce rounds per (rank, group, tag): done so far, and in the whole run (a rank
  // leaves the window after its last one).
  std::map<std::tuple<int, GroupId, int>, std::int64_t> partial_done_, partial_total_;
  std::map<std::pair<GroupId, int>, std::vector<Round>> rounds_;
};

}  // namespace geotrain::engine
