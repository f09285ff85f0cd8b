// gpipe (DT-FM's pipeline + data parallel): S stages x D replicas, rank = replica x S + stage;
// the pipeline itself (schedules, activation/gradient transfers) is pipeline_ops.hpp.
// Then the D replicas of each stage average that stage's gradients (dp_sync: allreduce with the
// chosen algorithm; ps-central = gather to the group's first rank + scatter back; ps-sharded =
// reduce-scatter + all-gather, both direct) and step the optimizer.
#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/strategies/pipeline_ops.hpp"

namespace geotrain {

namespace {

void dp_sync_ops(std::vector<Op>& ops, const Pipeline& pl, const Program& p, GroupId group,
                 int stage, int rank) {
  const auto [begin, end] = pl.layers[static_cast<std::size_t>(stage)];
  const double gradient = stage_gradient_bytes(pl.s.model, begin, end);
  const std::string& sync = pl.s.strategy.text("dp_sync");
  const int root = p.group(group).ranks.front();
  const auto coll = [&](CollectiveKind k, CollectiveAlgorithm a, const std::string& name) {
    ops.push_back(
        make_op(collective(k, group, gradient, a, root), fmt::format("{} dp s{}", name, stage)));
  };
  if (sync == "allreduce") {
    coll(CollectiveKind::allreduce, allreduce_algorithm(pl.s, pl.replicas), "allreduce");
  } else if (sync == "ps-central") {
    coll(CollectiveKind::gather, CollectiveAlgorithm::direct, "gather");
    if (rank == root)
      ops.push_back(
          averaging(pl.s.model, gradient, stage, begin, end, fmt::format("average s{}", stage)));
    coll(CollectiveKind::scatter, CollectiveAlgorithm::direct, "scatter");
  } else {
    coll(CollectiveKind::reduce_scatter, CollectiveAlgorithm::direct, "reduce-scatter");
    ops.push_back(averaging(pl.s.model, gradient / pl.replicas, stage, begin, end,
                            fmt::format("average shard s{}", stage)));
    coll(CollectiveKind::allgather, CollectiveAlgorithm::direct, "allgather");
  }
}

Program build_gpipe(const Scenario& s, const Assignment& placement) {
  std::vector<int> devices;
  const Pipeline pl = pipeline_of(s, placement, devices);
  const int stages = pl.stages, replicas = pl.replicas;
  Program p = new_program(s, "gpipe", devices);
  for (int st = 0; st < stages; ++st) {
    std::vector<int> members;
    for (int r = 0; r < replicas; ++r) members.push_back(pl.rank(r, st));
    const GroupId g = add_group(p, fmt::format("dp s{}", st), members);
    for (int rank : members) {
      auto& ops = p.ranks[static_cast<std::size_t>(rank)];
      pipeline_ops(ops, pl, rank / stages, st);
      dp_sync_ops(ops, pl, p, g, st, rank);
      const auto [begin, end] = pl.layers[static_cast<std::size_t>(st)];
      ops.push_back(optimizer_step(s, st, begin, end));
    }
  }
  return p;
}

const StrategyRegistrar kGpipeRegistrar{{
    {"gpipe",
     "DT-FM pipeline + data parallel: S stages x D replicas, GPipe or 1F1B schedule, then a "
     "per-stage gradient sync among the replicas",
     {integer_param("stages", 1, 1, 1e6, "pipeline stages S"),
      integer_param("replicas", 1, 1, 1e6, "data-parallel replicas D"),
      choice_param("schedule", "gpipe", {"gpipe", "1f1b"}, "micro-batch schedule"),
      choice_param("dp_sync", "allreduce", {"allreduce", "ps-central", "ps-sharded"},
                   "how the replicas of a stage average gradients"),
      choice_param("algorithm", "ring", collective_algorithm_names(),
                   "all-reduce algorithm for dp_sync")},
     pipeline_check},
    StrategyLayout::pipeline, build_gpipe}};

}  // namespace

}  // namespace geotrain
