#pragma once
// Dynamic ops: averaging whose partners are chosen at run time (program.hpp's DynamicRule, a
// closed variant visited exhaustively) — AD-PSGD's seeded gossip pairs and the partial reduce of
// SD-Pipe / DiLoCo-with-timeout, decided by a coordinator next to the store. What they average
// is the op's payload: the stage's weights, or DiLoCo's pseudo-gradient in the wire dtype.
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "emu/worker/preduce_coordinator.hpp"
#include "emu/worker/rank_context.hpp"
#include "emu/worker/stage_state.hpp"

namespace geotrain {

class DynamicOps {
 public:
  // Rank 0 starts one coordinator per partial-reduce op of the Program.
  DynamicOps(RankContext& ctx, StageState& state);
  ~DynamicOps();
  // Before the first step: opens every connection a dynamic op may use (see the .cpp).
  void warm_up_groups();
  // Runs op i; returns the bytes this rank sent.
  double run(int i, const DynamicOp& d);
  // Waits until the coordinators this rank hosts have served every arrival.
  void finish();

 private:
  double gossip(int i, const DynamicOp& d, const GossipRule& rule, torch::Tensor& wire);
  double partial_reduce(int i, const DynamicOp& d, torch::Tensor& wire);

  RankContext& ctx_;
  StageState& state_;
  std::map<std::pair<GroupId, int>, std::int64_t> rounds_;  // (group, tag) -> runs so far
  // Shared by the coordinators (one full sync at a time, dynamic_rules.hpp); outlives them.
  FullSyncBaton full_sync_baton_;
  std::vector<std::unique_ptr<PreduceCoordinator>> coordinators_;
};

}  // namespace geotrain
