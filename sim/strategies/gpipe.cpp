// gpipe (DT-FM's pipeline + data parallel): S stages x D replicas, rank = replica x S + stage.
// Each stage holds a contiguous run of layers (split_layers). Within a replica, activations go
// forward and their gradients backward between consecutive stages (tag = 2 x micro-batch +
// direction). Receives are posted at the start of the iteration and sends are nonblocking, as
// DT-FM's separate communication streams behave: a stage computes while the next micro-batch
// arrives, and the closed form (closed_forms.hpp, gpipe_stage_end_times) holds.
// Schedules: gpipe = all M forwards, then all M backwards; 1f1b = PipeDream-flush (warm-up of
// S - s - 1 forwards, then one forward / one backward, then the remaining backwards).
// Then the D replicas of each stage average that stage's gradients (dp_sync: allreduce with the
// chosen algorithm; ps-central = gather to the group's first rank + scatter back; ps-sharded =
// reduce-scatter + all-gather, both direct) and step the optimizer.
#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

constexpr int kActivation = 0, kGradient = 1;
int tag_of(int micro_batch, int direction) {
  return 2 * micro_batch + direction;
}

struct Step {
  bool forward;
  int micro_batch;
};

std::vector<Step> stage_schedule(const std::string& schedule, int stage, int stages, int m) {
  std::vector<Step> steps;
  if (schedule == "gpipe") {
    for (int i = 0; i < m; ++i) steps.push_back({true, i});
    for (int i = 0; i < m; ++i) steps.push_back({false, i});
    return steps;
  }
  const int warmup = std::min(stages - stage - 1, m);
  for (int i = 0; i < warmup; ++i) steps.push_back({true, i});
  for (int i = 0; i < m - warmup; ++i)
    steps.push_back({true, warmup + i}), steps.push_back({false, i});
  for (int i = m - warmup; i < m; ++i) steps.push_back({false, i});
  return steps;
}

struct Pipeline {
  const Scenario& s;
  int stages, replicas;
  MicroBatching mb;
  std::vector<std::pair<int, int>> layers;
  std::string schedule;
  int rank(int replica, int stage) const { return replica * stages + stage; }
};

// Posts all receives, then walks the schedule; returns with every send waited for.
void pipeline_ops(std::vector<Op>& ops, const Pipeline& pl, int replica, int stage) {
  const int m = pl.mb.micro_batches;
  const int prev = stage > 0 ? pl.rank(replica, stage - 1) : -1;
  const int next = stage + 1 < pl.stages ? pl.rank(replica, stage + 1) : -1;
  const double bytes = activation_bytes(pl.s.model, pl.mb.sequences);
  const auto [begin, end] = pl.layers[static_cast<std::size_t>(stage)];
  std::vector<int> recv_act(static_cast<std::size_t>(m)), recv_grad(static_cast<std::size_t>(m)),
      sends;
  const auto post = [&](std::vector<int>& where, int peer, int direction, const char* what) {
    for (int i = 0; i < m; ++i) {
      where[static_cast<std::size_t>(i)] = static_cast<int>(ops.size());
      ops.push_back(make_op(RecvOp{peer, bytes, tag_of(i, direction)},
                            fmt::format("recv {} s{} mb{}", what, stage, i), true));
    }
  };
  if (prev >= 0) post(recv_act, prev, kActivation, "act");
  if (next >= 0) post(recv_grad, next, kGradient, "grad");
  for (const Step& st : stage_schedule(pl.schedule, stage, pl.stages, m)) {
    const int i = st.micro_batch;
    const int from = st.forward ? prev : next, to = st.forward ? next : prev;
    const char* what = st.forward ? "act" : "grad";
    if (from >= 0)
      ops.push_back(make_wait({(st.forward ? recv_act : recv_grad)[static_cast<std::size_t>(i)]},
                              fmt::format("wait {} s{} mb{}", what, stage, i)));
    if (st.forward)
      ops.push_back(make_op(forward_op(pl.s.model, stage, i, begin, end, pl.mb.sequences),
                            fmt::format("fwd s{} mb{}", stage, i)));
    else
      ops.push_back(make_op(backward_op(pl.s.model, stage, i, begin, end, pl.mb.sequences),
                            fmt::format("bwd s{} mb{}", stage, i)));
    if (to >= 0) {
      sends.push_back(static_cast<int>(ops.size()));
      ops.push_back(make_op(SendOp{to, bytes, tag_of(i, st.forward ? kActivation : kGradient)},
                            fmt::format("send {} s{} mb{}", what, stage, i), true));
    }
  }
  if (!sends.empty()) ops.push_back(make_wait(sends, fmt::format("wait sends s{}", stage)));
}

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

}  // namespace

Program build_gpipe(const Scenario& s, const Assignment& placement) {
  const auto stages = static_cast<int>(s.strategy.integer("stages"));
  const auto replicas = static_cast<int>(s.strategy.integer("replicas"));
  if (placement.stages != stages || placement.replicas != replicas)
    throw InputError(
        fmt::format("{}: placement has {} stages x {} replicas, strategy gpipe wants {} x {}",
                    s.path, placement.stages, placement.replicas, stages, replicas));
  if (stages > s.model.layers)
    throw InputError(fmt::format("{}: strategy.stages = {}: more stages than the model's {} layers",
                                 s.path, stages, s.model.layers));
  std::vector<int> devices;
  for (int r = 0; r < replicas; ++r)
    for (int st = 0; st < stages; ++st) devices.push_back(placement.device(r, st));
  Program p = new_program(s, "gpipe", devices);
  const Pipeline pl{s,
                    stages,
                    replicas,
                    micro_batching(s.training, replicas),
                    split_layers(s.model.layers, stages),
                    s.strategy.text("schedule")};
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

}  // namespace geotrain
