#include <fmt/format.h>

#include <cmath>

#include "sim/common/error.hpp"
#include "sim/scenario/diagnostics.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

MicroBatching micro_batching(const TrainingSpec& t, int replicas) {
  const double share = t.global_batch / replicas;
  MicroBatching mb;
  if (t.micro_batches > 0)
    mb.micro_batches = t.micro_batches;
  else if (t.micro_batch > 0)
    mb.micro_batches = std::max(1, static_cast<int>(std::ceil(share / t.micro_batch - 1e-9)));
  mb.sequences = share / mb.micro_batches;
  return mb;
}

CollectiveAlgorithm algorithm_named(const std::string& name) {
  for (auto a :
       {CollectiveAlgorithm::ring, CollectiveAlgorithm::tree, CollectiveAlgorithm::halving_doubling,
        CollectiveAlgorithm::direct, CollectiveAlgorithm::library, CollectiveAlgorithm::butterfly})
    if (name == to_string(a)) return a;
  throw InputError(
      fmt::format("strategy.algorithm = '{}': unknown collective algorithm (expected ring, tree, "
                  "halving-doubling, direct, library or butterfly)",
                  name));
}

CollectiveAlgorithm allreduce_algorithm(const Scenario& s, int group_size) {
  const auto a = algorithm_named(s.strategy.text("algorithm"));
  if (a == CollectiveAlgorithm::halving_doubling && (group_size & (group_size - 1)) != 0)
    throw InputError(
        fmt::format("{}: strategy.algorithm = halving-doubling: needs a power-of-2 "
                    "number of data-parallel replicas, the scenario has {} (use ring "
                    "or tree)",
                    s.path, group_size));
  return a;
}

Program new_program(const Scenario& s, const std::string& strategy,
                    std::vector<int> device_of_rank) {
  Program p;
  p.strategy = strategy;
  p.world_size = static_cast<int>(device_of_rank.size());
  p.device_of_rank = std::move(device_of_rank);
  p.ranks.resize(static_cast<std::size_t>(p.world_size));
  p.sequences_per_iteration = s.training.global_batch;
  p.tokens_per_iteration = s.training.global_batch * s.model.seq_len;
  p.model_flops_per_iteration =
      3 * stage_forward_flops_per_sequence(s.model, 0, s.model.layers) * s.training.global_batch;
  return p;
}

GroupId add_group(Program& p, std::string name, std::vector<int> ranks) {
  const auto id = static_cast<GroupId>(p.groups.size());
  p.groups.push_back({id, std::move(name), std::move(ranks)});
  return id;
}

Op make_op(ComputeOp body, std::string label) {
  return {body, false, std::move(label)};
}
Op make_op(SendOp body, std::string label, bool nonblocking) {
  return {body, nonblocking, std::move(label)};
}
Op make_op(RecvOp body, std::string label, bool nonblocking) {
  return {body, nonblocking, std::move(label)};
}
Op make_op(CollectiveOp body, std::string label, bool nonblocking) {
  return {body, nonblocking, std::move(label)};
}
Op make_wait(std::vector<int> ops, std::string label) {
  return {WaitOp{std::move(ops)}, false, std::move(label)};
}

CollectiveOp collective(CollectiveKind kind, GroupId group, double bytes,
                        CollectiveAlgorithm algorithm, int root, int tag) {
  CollectiveOp c;
  c.kind = kind;
  c.group = group;
  c.bytes = bytes;
  c.algorithm = algorithm;
  c.root = root;
  c.tag = tag;
  return c;
}

void add_forward_backward(std::vector<Op>& ops, const ModelSpec& m, const MicroBatching& mb,
                          int count, int stage, int layer_begin, int layer_end) {
  for (int i = 0; i < count; ++i) {
    ops.push_back(make_op(forward_op(m, stage, i, layer_begin, layer_end, mb.sequences),
                          fmt::format("fwd s{} mb{}", stage, i)));
    ops.push_back(make_op(backward_op(m, stage, i, layer_begin, layer_end, mb.sequences),
                          fmt::format("bwd s{} mb{}", stage, i)));
  }
}

void add_local_steps(std::vector<Op>& ops, const Scenario& s, const MicroBatching& mb, int steps,
                     int first) {
  const int layers = s.model.layers;
  for (int step = first; step < first + steps; ++step) {
    for (int i = 0; i < mb.micro_batches; ++i)
      ops.push_back(make_op(forward_op(s.model, 0, i, 0, layers, mb.sequences),
                            fmt::format("fwd h{} mb{}", step, i)));
    for (int i = 0; i < mb.micro_batches; ++i)
      ops.push_back(make_op(backward_op(s.model, 0, i, 0, layers, mb.sequences),
                            fmt::format("bwd h{} mb{}", step, i)));
    ops.push_back(make_op(optimizer_op(s.model, s.training.optimizer, 0, 0, layers),
                          fmt::format("optim h{}", step)));
  }
}

Op optimizer_step(const Scenario& s, int stage, int layer_begin, int layer_end) {
  return make_op(optimizer_op(s.model, s.training.optimizer, stage, layer_begin, layer_end),
                 fmt::format("optim s{}", stage));
}

Op weights_pass_op(int layer_begin, int layer_end, double params, ComputeKind kind, double flops, double bytes,
                   std::string label) {
  ComputeOp op;
  op.kind = kind;
  op.micro_batch = -1;
  op.layer_begin = layer_begin;
  op.layer_end = layer_end;
  op.flops = flops * params;
  op.memory_bytes = bytes * params;
  return make_op(op, std::move(label));
}

std::vector<ParamDecl> with_outer_step_params(std::vector<ParamDecl> own) {
  own.push_back(number_param("outer_lr", 0.7, 0, 1e3, "outer SGD learning rate"));
  own.push_back(number_param("outer_momentum", 0.9, 0, 1, "outer Nesterov momentum"));
  return own;
}

Op averaging(const ModelSpec& m, double bytes, int stage, int layer_begin, int layer_end,
             std::string label) {
  ComputeOp op;
  op.kind = ComputeKind::other;
  op.stage = stage;
  op.micro_batch = -1;
  op.layer_begin = layer_begin;
  op.layer_end = layer_end;
  op.flops = bytes / static_cast<double>(dtype_bytes(m.gradient_dtype));
  op.memory_bytes = 2 * bytes;
  return make_op(op, std::move(label));
}

std::vector<int> data_parallel_devices(const Assignment& placement) {
  std::vector<int> devices;
  for (int r = 0; r < placement.replicas; ++r) devices.push_back(placement.device(r, 0));
  return devices;
}

void data_parallel_check(const Scenario& s, Diagnostics& diag, int line) {
  const int n = participating_devices(s);
  if (s.training.global_batch > 0 && s.training.global_batch < n)
    diag.error(line, "training.global_batch",
               fmt::format("{} sequences cannot be split over {} data-parallel replicas",
                           s.training.global_batch, n));
}

void pipeline_check(const Scenario& s, Diagnostics& diag, int line) {
  const auto stages = s.strategy.integer("stages");
  const auto replicas = s.strategy.integer("replicas");
  const int n = participating_devices(s);
  if (stages * replicas != n)
    diag.error(line, "strategy",
               fmt::format("stages x replicas = {} x {} = {} but the scenario has {} devices "
                           "(expected them to match)",
                           stages, replicas, stages * replicas, n));
  if (stages > s.model.layers)
    diag.error(line, "strategy.stages",
               fmt::format("{} stages for a model of {} layers (expected at most one stage per "
                           "layer)",
                           stages, s.model.layers));
}

const std::vector<std::string>& collective_algorithm_names() {
  static const std::vector<std::string> names{"ring", "tree", "halving-doubling", "direct",
                                              "library", "butterfly"};
  return names;
}

}  // namespace geotrain
