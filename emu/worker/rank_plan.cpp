#include "emu/worker/rank_plan.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>

#include <fmt/format.h>

#include "sim/common/error.hpp"

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

// Union-find over Send/Recv edges: each connected set of ranks is one pipeline (replica).
std::vector<int> replica_of_ranks(const Program& p, const std::vector<int>& stage) {
  std::vector<int> parent(p.ranks.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (std::size_t r = 0; r < p.ranks.size(); ++r)
    for (const auto& op : p.ranks[r]) {
      int peer = -1;
      if (const auto* s = op.as<SendOp>(); s && !s->state) peer = s->peer;
      if (const auto* v = op.as<RecvOp>(); v && !v->state) peer = v->peer;
      if (peer < 0 || peer >= static_cast<int>(p.ranks.size()) || stage[peer] == stage[r]) continue;
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

// Same-stage Sends (parameter-server traffic): gradients when no optimizer op came after the
// rank's last backward op (a virtual worker's push), weights when one did (the server's reply).
// Keyed by (from, to, tag) in Program order.
std::map<std::tuple<int, int, int>, std::vector<Carries>> server_sends(const Program& p,
                                                                       const std::vector<int>& stage) {
  std::map<std::tuple<int, int, int>, std::vector<Carries>> out;
  for (std::size_t r = 0; r < p.ranks.size(); ++r) {
    bool optimized = false;
    for (const auto& op : p.ranks[r]) {
      if (const auto* c = op.as<ComputeOp>(); c && c->kind == ComputeKind::optimizer) optimized = true;
      if (const auto* c = op.as<ComputeOp>(); c && c->kind == ComputeKind::backward) optimized = false;
      if (const auto* s = op.as<SendOp>(); s && !s->state && stage[s->peer] == stage[r])
        out[{static_cast<int>(r), s->peer, s->tag}].push_back(optimized ? Carries::weights
                                                                        : Carries::gradients);
    }
  }
  return out;
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
      if (b && b->kind == ComputeKind::other) {
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
  const auto replica = replica_of_ranks(p, stage);
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
  const auto sends = server_sends(p, stage);
  std::map<std::tuple<int, int, int>, std::size_t> seen;  // Recvs matched per (from, to, tag)
  // What each Send/Recv carries: k-th of its kind <-> k-th forward / backward op.
  std::vector<int> fwd_mb, bwd_mb;
  for (const auto& op : p.ranks[rank])
    if (const auto* c = op.as<ComputeOp>()) {
      if (c->kind == ComputeKind::forward) fwd_mb.push_back(c->micro_batch);
      if (c->kind == ComputeKind::backward) bwd_mb.push_back(c->micro_batch);
    }
  std::size_t act_in = 0, act_out = 0, grad_in = 0, grad_out = 0;
  for (std::size_t i = 0; i < p.ranks[rank].size(); ++i) {
    const auto& op = p.ranks[rank][i];
    Carries what = Carries::nothing;
    int mb = -1;
    auto pick = [&](const std::vector<int>& list, std::size_t& k, Carries c) {
      if (k >= list.size())
        throw InputError(fmt::format("Program rank {} op {} ('{}'): more transfers than compute "
                                     "ops they could belong to",
                                     rank, i, op.label));
      mb = list[k++];
      what = c;
    };
    const auto* send = op.as<SendOp>();
    const auto* recv = op.as<RecvOp>();
    const int peer = send ? send->peer : recv ? recv->peer : -1;
    if ((send && send->state) || (recv && recv->state)) {
      what = Carries::state;
    } else if (peer >= 0 && stage[peer] == plan.stage) {
      const int tag = send ? send->tag : recv->tag;
      const auto key = send ? std::tuple{rank, peer, tag} : std::tuple{peer, rank, tag};
      const auto it = sends.find(key);
      const std::size_t k = seen[key]++;
      if (it == sends.end() || k >= it->second.size())
        throw InputError(fmt::format("Program rank {} op {} ('{}'): no matching Send from rank {} "
                                     "with tag {}", rank, i, op.label, peer, tag));
      what = it->second[k];
    } else if (send) {
      stage[peer] > plan.stage ? pick(fwd_mb, act_out, Carries::activation)
                               : pick(bwd_mb, grad_out, Carries::activation_grad);
    } else if (recv) {
      stage[peer] < plan.stage ? pick(fwd_mb, act_in, Carries::activation)
                               : pick(bwd_mb, grad_in, Carries::activation_grad);
    }
    plan.carries.push_back(what);
    plan.carries_micro_batch.push_back(mb);
  }
  // A push followed by the rank's own optimizer op (HetPipe with staleness: the local update)
  // leaves the gradients in place for it; otherwise the push hands them over.
  const auto& ops = p.ranks[rank];
  plan.keeps_gradients.assign(ops.size(), false);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (plan.carries[i] != Carries::gradients || !ops[i].as<SendOp>()) continue;
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
