#include "emu/worker/rank_plan.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/program/compression.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain {

namespace {

std::vector<int> stage_of_ranks(const Program& p) {
  std::vector<int> stage(p.ranks.size(), -1);
  for (std::size_t r = 0; r < p.ranks.size(); ++r)
    for (std::size_t i = 0; i < p.ranks[r].size(); ++i) {
      const auto* c = p.ranks[r][i].as<ComputeOp>();
      if (!c) continue;
      if (stage[r] >= 0 && stage[r] != c->stage)
        throw InputError(fmt::format("Program rank {} op {} ('{}'): stage {} but earlier ops are "
                                     "stage {} (expected one stage per rank)",
                                     r, i, p.ranks[r][i].label, c->stage, stage[r]));
      stage[r] = c->stage;
    }
  return stage;
}

bool is_pipeline(Payload payload) {
  return payload == Payload::activation || payload == Payload::activation_grad;
}

// Union-find over activation Send/Recv edges: each connected set of ranks is one pipeline
// (replica).
std::vector<int> replica_of_ranks(const Program& p) {
  std::vector<int> parent(p.ranks.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (std::size_t r = 0; r < p.ranks.size(); ++r)
    for (const auto& op : p.ranks[r]) {
      int peer = -1;
      if (const auto* s = op.as<SendOp>(); s && is_pipeline(s->payload)) peer = s->peer;
      if (const auto* v = op.as<RecvOp>(); v && is_pipeline(v->payload)) peer = v->peer;
      if (peer < 0 || peer >= static_cast<int>(p.ranks.size())) continue;
      const int a = find(static_cast<int>(r)), b = find(peer);
      parent[std::max(a, b)] = std::min(a, b);
    }
  std::map<int, int> index;  // root (lowest rank of the set) -> replica number
  std::vector<int> replica(p.ranks.size());
  for (std::size_t r = 0; r < p.ranks.size(); ++r) {
    const int root = find(static_cast<int>(r));
    replica[r] = index.emplace(root, static_cast<int>(index.size())).first->second;
  }
  return replica;
}

void plan_micro_batches(const Program& p, RankPlan& plan) {
  std::map<int, int> sequences;
  std::map<int, int> passes;  // micro-batch -> forward ops starting at the stage's first layer
  for (const auto& op : p.ranks[plan.rank])
    if (const auto* c = op.as<ComputeOp>(); c && c->kind == ComputeKind::forward) {
      sequences.emplace(c->micro_batch, static_cast<int>(c->sequences));
      if (c->layer_begin == plan.layer_begin) ++passes[c->micro_batch];
    }
  plan.passes = passes.empty() ? 1 : passes.begin()->second;
  int offset = 0;
  for (const auto& [id, n] : sequences) {
    plan.micro_batches.push_back({id, n, offset});
    offset += n;
  }
  plan.replica_sequences = offset;
  plan.global_sequences = offset * plan.replicas;
}

}  // namespace

std::vector<bool> pseudo_gradient_phase(const std::vector<Op>& ops) {
  std::vector<bool> phase(ops.size(), false);
  for (std::size_t i = ops.size(); i-- > 0;) {
    const auto* c = ops[i].as<ComputeOp>();
    if (!c || c->kind != ComputeKind::outer_optimizer) continue;
    for (std::size_t j = i; j-- > 0;) {
      const auto* b = ops[j].as<ComputeOp>();
      if (b && b->kind == ComputeKind::optimizer) break;
      // A compressed average's codec ops (also kind other) are not where the phase begins.
      if (b && b->kind == ComputeKind::other && codec_role(ops, j) == CodecRole::none) {
        for (std::size_t k = j; k < i; ++k) phase[k] = true;
        break;
      }
    }
  }
  return phase;
}

const MicroBatchSlice& RankPlan::micro_batch(int id) const {
  for (const auto& m : micro_batches)
    if (m.id == id) return m;
  throw InputError(fmt::format("rank {}: no forward op for micro-batch {}", rank, id));
}

RankPlan make_rank_plan(const Program& p, int rank, int model_layers) {
  if (rank < 0 || rank >= static_cast<int>(p.ranks.size()))
    throw InputError(fmt::format("rank {} outside the Program's {} ranks", rank, p.ranks.size()));
  const auto stage = stage_of_ranks(p);
  const auto replica = replica_of_ranks(p);
  RankPlan plan;
  plan.rank = rank;
  plan.stage = stage[rank];
  if (plan.stage < 0) throw InputError(fmt::format("Program rank {} has no Compute op", rank));
  plan.stages = *std::max_element(stage.begin(), stage.end()) + 1;
  plan.replica = replica[rank];
  plan.replicas = *std::max_element(replica.begin(), replica.end()) + 1;
  plan.layer_begin = model_layers, plan.layer_end = 0;
  for (const auto& op : p.ranks[rank])
    if (const auto* c = op.as<ComputeOp>(); c && c->kind != ComputeKind::optimizer) {
      plan.layer_begin = std::min(plan.layer_begin, c->layer_begin);
      plan.layer_end = std::max(plan.layer_end, c->layer_end);
    }
  if (plan.layer_begin >= plan.layer_end || plan.layer_end > model_layers ||
      (plan.first_stage() != (plan.layer_begin == 0)) ||
      (plan.last_stage() != (plan.layer_end == model_layers)))
    throw InputError(fmt::format("Program rank {} (stage {} of {}) computes layers [{}, {}) of a "
                                 "{}-layer model (expected stage 0 to start at layer 0 and the last "
                                 "stage to end at layer {})",
                                 rank, plan.stage, plan.stages, plan.layer_begin, plan.layer_end,
                                 model_layers, model_layers));
  plan_micro_batches(p, plan);
  if (p.sequences_per_iteration > 0 &&
      plan.global_sequences * plan.passes != p.sequences_per_iteration)
    throw InputError(fmt::format("Program: {} replicas x {} sequences per replica x {} passes = {} "
                                 "but sequences_per_iteration is {}",
                                 plan.replicas, plan.replica_sequences, plan.passes,
                                 plan.global_sequences * plan.passes, p.sequences_per_iteration));
  // What each Send/Recv carries is its payload; an activation's micro-batch must be one this
  // rank computes.
  for (std::size_t i = 0; i < p.ranks[rank].size(); ++i) {
    const auto& op = p.ranks[rank][i];
    const auto* send = op.as<SendOp>();
    const auto* recv = op.as<RecvOp>();
    plan.carries.push_back(send ? send->payload : recv ? recv->payload : Payload::gradients);
    plan.carries_micro_batch.push_back(send ? send->micro_batch : recv ? recv->micro_batch : -1);
    if ((send || recv) && is_pipeline(plan.carries.back()) &&
        std::none_of(plan.micro_batches.begin(), plan.micro_batches.end(),
                     [&](const MicroBatchSlice& m) { return m.id == plan.carries_micro_batch.back(); }))
      throw InputError(fmt::format("Program rank {} op {} ('{}'): carries the {} of micro-batch {}, "
                                   "which no forward op of this rank computes",
                                   rank, i, op.label, json_name(plan.carries.back()),
                                   plan.carries_micro_batch.back()));
  }
  // A push followed by the rank's own optimizer op (HetPipe with staleness: the local update)
  // leaves the gradients in place for it; otherwise the push hands them over.
  const auto& ops = p.ranks[rank];
  plan.keeps_gradients.assign(ops.size(), false);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (plan.carries[i] != Payload::gradients || !ops[i].as<SendOp>()) continue;
    for (std::size_t j = i + 1; j < ops.size(); ++j) {
      const auto* c = ops[j].as<ComputeOp>();
      if (c && c->kind == ComputeKind::optimizer) plan.keeps_gradients[i] = true;
      if (c && (c->kind == ComputeKind::optimizer || c->kind == ComputeKind::backward ||
                c->kind == ComputeKind::forward))
        break;
    }
  }
  return plan;
}

}  // namespace geotrain
