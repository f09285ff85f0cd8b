// sdpipe-preduce (SD-Pipe's --preduce): pipelined data parallel, S stages x D replicas
// (rank = replica x S + stage), where the replicas of a stage never wait for all the others.
// One Program iteration = one pipeline pass of the replica's micro-batches (pipeline_ops.hpp),
// the local optimizer step, then per stage a partial reduce (DynamicOp, group "dp s<stage>"):
// a coordinator opens a window when the first replica is ready (window_initial, adapting
// between window_min and window_max: dynamic_rules.hpp, PartialReduceWindow), the replicas ready
// within it average their stage weights (an all-reduce within that group), and after every
// full_sync_every updates (default 10 x replicas, Hetu's sync_every = 10 per worker) the next
// window waits for every replica. Then "average weights" divides the sum.
#include <fmt/format.h>

#include "sim/scenario/diagnostics.hpp"
#include "sim/strategies/pipeline_ops.hpp"

namespace geotrain {

namespace {

Program build_sdpipe_preduce(const Scenario& s, const Assignment& placement) {
  std::vector<int> devices;
  const Pipeline pl = pipeline_of(s, placement, devices);
  Program p = new_program(s, "sdpipe-preduce", devices);
  const auto every = s.strategy.integer("full_sync_every");
  for (int st = 0; st < pl.stages; ++st) {
    std::vector<int> members;
    for (int r = 0; r < pl.replicas; ++r) members.push_back(pl.rank(r, st));
    const GroupId g = add_group(p, fmt::format("dp s{}", st), members);
    const auto [begin, end] = pl.layers[static_cast<std::size_t>(st)];
    const double weights = stage_gradient_bytes(s.model, begin, end);
    DynamicOp d;
    d.rule = PartialReduceRule{s.strategy.number("window_initial"), s.strategy.number("window_min"),
                               s.strategy.number("window_max"),
                               static_cast<int>(every > 0 ? every : 10 * pl.replicas)};
    d.group = g;
    d.bytes = weights;
    d.payload = Payload::weights;
    for (int rank : members) {
      auto& ops = p.ranks[static_cast<std::size_t>(rank)];
      pipeline_ops(ops, pl, rank / pl.stages, st);
      ops.push_back(optimizer_step(s, st, begin, end));
      Op preduce;
      preduce.body = d;
      preduce.label = fmt::format("preduce s{}", st);
      ops.push_back(std::move(preduce));
      ops.push_back(averaging(s.model, weights, st, begin, end, fmt::format("average s{}", st)));
    }
  }
  return p;
}

// SD-Pipe's window must start inside its adaptation range.
void sdpipe_check(const Scenario& s, Diagnostics& diag, int line) {
  pipeline_check(s, diag, line);
  const double lo = s.strategy.number("window_min"), hi = s.strategy.number("window_max"),
               w = s.strategy.number("window_initial");
  if (!(lo <= w && w <= hi))
    diag.error(line, "strategy.window_initial",
               fmt::format("{} s outside [window_min, window_max] = [{}, {}] s", w, lo, hi));
}

const StrategyRegistrar kSdpipePreduceRegistrar{{
    {"sdpipe-preduce",
     "SD-Pipe: pipelines whose stage replicas average weights with the replicas ready within "
     "an adaptive window (partial reduce), with a forced full sync every full_sync_every updates",
     {integer_param("stages", 1, 1, 1e6, "pipeline stages S"),
      integer_param("replicas", 1, 1, 1e6, "data-parallel replicas D"),
      choice_param("schedule", "1f1b", {"gpipe", "1f1b"}, "micro-batch schedule"),
      duration_param("window_initial", 1e-3, ranges::kWindow, "first partial-reduce window"),
      duration_param("window_min", 1e-5, ranges::kWindow, "smallest window"),
      duration_param("window_max", 1e-2, ranges::kWindow, "largest window"),
      integer_param("full_sync_every", 0, 0, 1e9,
                    "updates between forced full syncs (0: 10 x replicas, SD-Pipe's default)")},
     sdpipe_check},
    StrategyLayout::pipeline, build_sdpipe_preduce}};

}  // namespace

}  // namespace geotrain
