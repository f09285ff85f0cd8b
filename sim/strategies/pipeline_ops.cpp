#include "sim/strategies/pipeline_ops.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"
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

}  // namespace

Pipeline pipeline_of(const Scenario& s, const Assignment& placement, std::vector<int>& devices) {
  const auto stages = static_cast<int>(s.strategy.integer("stages"));
  const auto replicas = static_cast<int>(s.strategy.integer("replicas"));
  if (placement.stages != stages || placement.replicas != replicas)
    throw InputError(
        fmt::format("{}: placement has {} stages x {} replicas, strategy {} wants {} x {}", s.path,
                    placement.stages, placement.replicas, s.strategy.name, stages, replicas));
  if (stages > s.model.layers)
    throw InputError(fmt::format("{}: strategy.stages = {}: more stages than the model's {} layers",
                                 s.path, stages, s.model.layers));
  devices.clear();
  for (int r = 0; r < replicas; ++r)
    for (int st = 0; st < stages; ++st) devices.push_back(placement.device(r, st));
  return Pipeline{s,
                  stages,
                  replicas,
                  micro_batching(s.training, replicas),
                  split_layers(s.model.layers, stages),
                  s.strategy.text("schedule")};
}

void pipeline_ops(std::vector<Op>& ops, const Pipeline& pl, int replica, int stage,
                  int micro_batches) {
  const int m = micro_batches < 0 ? pl.mb.micro_batches : micro_batches;
  // 2m receives, 2m x (wait, compute, send), the final wait, and room for what callers append
  // (gradient sync, optimizer): an Op is large, growing the vector op by op moved them 5 times.
  ops.reserve(ops.size() + 8 * static_cast<std::size_t>(m) + 8);
  const int prev = stage > 0 ? pl.rank(replica, stage - 1) : -1;
  const int next = stage + 1 < pl.stages ? pl.rank(replica, stage + 1) : -1;
  const double bytes = activation_bytes(pl.s.model, pl.mb.sequences);
  const auto [begin, end] = pl.layers[static_cast<std::size_t>(stage)];
  std::vector<int> recv_act(static_cast<std::size_t>(m)), recv_grad(static_cast<std::size_t>(m)),
      sends;
  const auto post = [&](std::vector<int>& where, int peer, int direction, const char* what) {
    for (int i = 0; i < m; ++i) {
      where[static_cast<std::size_t>(i)] = static_cast<int>(ops.size());
      const Payload payload = direction == kActivation ? Payload::activation : Payload::activation_grad;
      ops.push_back(make_op(RecvOp{peer, bytes, tag_of(i, direction), payload, i},
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
      const Payload payload = st.forward ? Payload::activation : Payload::activation_grad;
      ops.push_back(make_op(SendOp{to, bytes, tag_of(i, st.forward ? kActivation : kGradient), payload, i},
                            fmt::format("send {} s{} mb{}", what, stage, i), true));
    }
  }
  if (!sends.empty()) ops.push_back(make_wait(sends, fmt::format("wait sends s{}", stage)));
}

}  // namespace geotrain
