#pragma once
// The pipeline part shared by gpipe, sdpipe-preduce and hetpipe: S stages x D replicas,
// rank = replica x S + stage. Each stage holds a contiguous run of layers (split_layers).
// Within a replica, activations go forward and their gradients backward between consecutive
// stages (tag = 2 x micro-batch + direction). Receives are posted at the start of the iteration
// and sends are nonblocking, as DT-FM's separate communication streams behave: a stage computes
// while the next micro-batch arrives (closed_forms.hpp, gpipe_stage_end_times).
// Schedules: gpipe = all M forwards, then all M backwards; 1f1b = PipeDream-flush (warm-up of
// S - s - 1 forwards, then one forward / one backward, then the remaining backwards).
#include <string>
#include <utility>
#include <vector>

#include "sim/strategies/strategy_builders.hpp"

namespace geotrain {

struct Pipeline {
  const Scenario& s;
  int stages, replicas;
  MicroBatching mb;
  std::vector<std::pair<int, int>> layers;  // [begin, end) per stage
  std::string schedule;                     // gpipe | 1f1b
  int rank(int replica, int stage) const { return replica * stages + stage; }
};

// Reads strategy.stages/replicas/schedule, checks them against the placement and the model
// (InputError naming `strategy`), and fills `devices` with the device of every rank.
Pipeline pipeline_of(const Scenario& s, const Assignment& placement, std::vector<int>& devices);

// Posts all receives, then walks the stage's schedule over the first `micro_batches`
// micro-batches (all when < 0); returns with every send waited for.
void pipeline_ops(std::vector<Op>& ops, const Pipeline& pl, int replica, int stage,
                  int micro_batches = -1);

}  // namespace geotrain
