// diloco (DiLoCo, Douillard et al. 2023; OpenDiLoCo): data parallel without per-step
// communication. One Program iteration is ONE OUTER ROUND:
//   H inner steps, each = forward + backward of the replica's micro-batches and an inner
//   optimizer step (training.optimizer at training.learning_rate: AdamW at 4e-4 in the paper),
//   then "pseudo-gradient" (an element-wise op: weights at the start of the round minus now),
//   then the pseudo-gradient is averaged over the workers in `wire_dtype`:
//     averaging = wait-for-all: one all-reduce (strategy.algorithm) of everyone;
//     averaging = timeout: a partial reduce (DynamicOp) whose window opens when the first worker
//       is ready and lasts `timeout`, so workers that are later are left out of that round
//       (hivemind's averaging_timeout),
//     averaging = moshpit: hivemind's Moshpit averaging, the all-reduce within the groups of a
//       seeded grid of `moshpit_dims` axes, round k along axis k mod moshpit_dims
//       (moshpit_grid.hpp; every group's collectives run every moshpit_dims-th round),
//     algorithm = butterfly: hivemind's butterfly all-reduce, parts sized by `butterfly_parts`
//       (butterfly_groups.hpp),
//     with `compression` (int8, fp4, topk; wait-for-all only) the all-reduce sits between its
//     codec ops "compress <kind>" and "decompress <kind>" (compressed_exchange.hpp),
//   then "outer optim": Nesterov SGD (outer_lr, outer_momentum) applies the averaged
//   pseudo-gradient to the round's starting weights (ComputeKind::outer_optimizer).
// Bytes on the wire per round equal one DDP all-reduce in the wire dtype, so per inner step
// they shrink H-fold (tests/decentralized). Throughput figures count the H steps.
//
// Workers that leave and rejoin (the scenario's `churn:` section, hivemind-style;
// sim/scenario/churn_schedule.hpp says who is present when):
//  - a worker away in a round runs nothing in it (its ops are inactive there: Op::iterations);
//  - the pseudo-gradient average of a round is over the workers present in it: one group per
//    distinct present set ("world" when everyone is there, else "world without 1, 3"), whose
//    all-reduce (wait-for-all) or partial-reduce window (timeout) is active in the rounds of
//    that set. Each present worker keeps its own share of the global batch, so a round with k
//    of N workers trains on k/N of it (the throughput figures stay nominal: all N);
//  - a worker rejoining at round J first loads the state of a present peer (hivemind's
//    load_state_from_peers): the lowest-ranked worker present in J-1 and J sends it its fp32
//    weights and outer momentum (a blocking Send/Recv with `state` set, 2 x 4 B per parameter,
//    tag J) at the start of round J, then the joiner runs round J normally. The sender is
//    blocked for the transfer (hivemind serves it from a background thread); the joiner's inner
//    optimizer state stays its own, as in hivemind, where only the outer state is shared.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "sim/program/butterfly_parts.hpp"
#include "sim/scenario/churn_schedule.hpp"
#include "sim/strategies/compressed_exchange.hpp"
#include "sim/strategies/moshpit_grid.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

// The choice parameter accepts only dtype_names().
DType wire_dtype(const std::string& name) { return *parse_dtype(name); }

// A pass over the whole model's fp32 weights costing `flops` and `bytes` per parameter.
Op whole_model_op(const ModelSpec& m, ComputeKind kind, double flops, double bytes,
                  const char* label) {
  return weights_pass_op(0, m.layers, stage_params(m, 0, m.layers), kind, flops, bytes, label);
}

// Element-wise pass over fp32 master weights: read two buffers, write one.
Op pseudo_gradient_op(const ModelSpec& m) {
  return whole_model_op(m, ComputeKind::other, 1, 12, "pseudo-gradient");
}

// Nesterov SGD: read weight, pseudo-gradient and momentum, write momentum and weight (20 B);
// momentum update, look-ahead and step are ~5 flop per parameter.
Op outer_optimizer_op(const ModelSpec& m) {
  return whole_model_op(m, ComputeKind::outer_optimizer, 5, 20, "outer optim");
}

}  // namespace

double diloco_wire_bytes(const Scenario& s) {
  const double gradient = stage_gradient_bytes(s.model, 0, s.model.layers);
  return gradient / static_cast<double>(dtype_bytes(s.model.gradient_dtype)) *
         static_cast<double>(dtype_bytes(wire_dtype(s.strategy.text("wire_dtype"))));
}

namespace {

// "world", or "world without 1, 3".
std::string group_name(const std::vector<int>& present, int workers) {
  std::string away;
  for (int w = 0, k = 0; w < workers; ++w) {
    if (k < static_cast<int>(present.size()) && present[static_cast<std::size_t>(k)] == w) {
      ++k;
      continue;
    }
    away += (away.empty() ? "" : ", ") + std::to_string(w);
  }
  return away.empty() ? "world" : "world without " + away;
}

std::vector<IterationRange> ranges(const std::vector<std::pair<int, int>>& pairs) {
  std::vector<IterationRange> out;
  for (const auto& [begin, end] : pairs) out.push_back({begin, end});
  return out;
}

// One averaging group per distinct set of present workers, with the rounds it averages in.
struct Membership {
  GroupId group;
  std::vector<int> ranks;
  std::vector<IterationRange> rounds;
};

std::vector<Membership> memberships(Program& p, const ChurnSchedule& churn) {
  std::vector<Membership> out;
  const auto& epochs = churn.epochs();
  for (std::size_t e = 0; e < epochs.size(); ++e) {
    const auto present = churn.present_in(epochs[e]);
    const int end = e + 1 < epochs.size() ? epochs[e + 1] : -1;
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const Membership& m) { return m.ranks == present; });
    if (it == out.end()) {
      out.push_back({add_group(p, group_name(present, churn.workers()), present), present, {}});
      it = std::prev(out.end());
    }
    if (!it->rounds.empty() && it->rounds.back().end == epochs[e])
      it->rounds.back().end = end;
    else
      it->rounds.push_back({epochs[e], end});
  }
  return out;
}

// Moshpit: one group per line of the grid with two workers or more, averaging every dims-th
// round from its axis on (a worker alone on its line keeps its own pseudo-gradient that round).
std::vector<Membership> moshpit_memberships(Program& p, const Scenario& s, int workers) {
  const auto dims = static_cast<int>(s.strategy.integer("moshpit_dims"));
  const MoshpitGrid grid = moshpit_grid(workers, dims, s.seed);
  std::vector<Membership> out;
  for (int a = 0; a < dims; ++a)
    for (std::size_t line = 0; line < grid.groups[static_cast<std::size_t>(a)].size(); ++line) {
      const auto& ranks = grid.groups[static_cast<std::size_t>(a)][line];
      if (ranks.size() < 2) continue;
      out.push_back({add_group(p, fmt::format("moshpit axis {} line {}", a, line), ranks), ranks,
                     {{a, -1, dims}}});
    }
  return out;
}

// The averaging of one membership: a partial reduce, an all-reduce, or the all-reduce between
// its codec ops when compressed (compressed_exchange.hpp).
std::vector<Op> averaging_ops(const Scenario& s, const Membership& m, double bytes) {
  if (s.strategy.text("averaging") == "timeout") {
    DynamicOp d;
    const double timeout = s.strategy.number("timeout");
    d.rule = PartialReduceRule{timeout, timeout, timeout, 0};
    d.group = m.group;
    d.bytes = bytes;
    d.payload = Payload::pseudo_gradient;
    Op op;
    op.body = d;
    op.label = "average pseudo-gradient";
    return {op};
  }
  // Rooted algorithms (tree) take the lowest present worker as the root.
  const auto members = static_cast<int>(m.ranks.size());
  CollectiveOp c = collective(CollectiveKind::allreduce, m.group, bytes,
                              allreduce_algorithm(s, members), m.ranks.front());
  c.payload = Payload::pseudo_gradient;
  c.compression = scenario_compression(s, static_cast<int>(dtype_bytes(wire_dtype(s.strategy.text("wire_dtype")))));
  std::vector<Op> ops;
  add_exchange(ops, c, "allreduce pseudo-gradient", members, s.model.layers);
  return ops;
}

// Who rejoins in which round, and from whom it loads the state: found once for all ranks
// (each lookup scans every worker: per rank it would be O(N^2) in all).
struct Rejoin {
  int round = 0;
  int source = 0;
  std::vector<int> joiners;
};

std::vector<Rejoin> rejoins(const ChurnSchedule& churn) {
  std::vector<Rejoin> out;
  for (int round : churn.epochs()) {
    auto joiners = churn.joining(round);
    if (!joiners.empty()) out.push_back({round, churn.state_source(round), std::move(joiners)});
  }
  return out;
}

// The rejoin transfers of round J: the source sends, each joiner receives.
void add_state_transfers(std::vector<Op>& ops, int rank, const std::vector<Rejoin>& rejoin, double bytes) {
  for (const auto& [round, source, joiners] : rejoin) {
    if (rank != source && !std::binary_search(joiners.begin(), joiners.end(), rank)) continue;
    for (int joiner : joiners) {
      Op op;
      if (rank == source)
        op = make_op(SendOp{joiner, bytes, round, Payload::state}, fmt::format("send state to {}", joiner), false);
      else if (rank == joiner)
        op = make_op(RecvOp{source, bytes, round, Payload::state}, fmt::format("load state from {}", source), false);
      else
        continue;
      op.iterations = {{round, round + 1}};
      ops.push_back(std::move(op));
    }
  }
}

}  // namespace

double diloco_state_bytes(const Scenario& s) {
  return 2 * 4 * stage_params(s.model, 0, s.model.layers);
}

namespace {

Program build_diloco(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "diloco", data_parallel_devices(placement));
  const int n = p.world_size;
  const auto h = static_cast<int>(s.strategy.integer("inner_steps"));
  const ChurnSchedule churn(s.churn, n);
  const auto groups = s.strategy.text("averaging") == "moshpit" ? moshpit_memberships(p, s, n)
                                                                 : memberships(p, churn);
  const auto rejoin = rejoins(churn);
  const MicroBatching mb = micro_batching(s.training, n);
  const double bytes = diloco_wire_bytes(s);
  for (int rank = 0; rank < n; ++rank) {
    auto& ops = p.ranks[static_cast<std::size_t>(rank)];
    add_state_transfers(ops, rank, rejoin, diloco_state_bytes(s));
    const std::size_t round_begin = ops.size();
    add_local_steps(ops, s, mb, h);
    ops.push_back(pseudo_gradient_op(s.model));
    for (const auto& m : groups) {
      if (!std::binary_search(m.ranks.begin(), m.ranks.end(), rank)) continue;
      for (Op& op : averaging_ops(s, m, bytes)) {
        if (groups.size() > 1) op.iterations = m.rounds;
        ops.push_back(std::move(op));
      }
    }
    ops.push_back(outer_optimizer_op(s.model));
    // A worker that is ever away runs its round only when present.
    const auto present = churn.present_ranges(rank);
    if (present.size() != 1 || present.front() != std::pair{0, -1})
      for (std::size_t i = round_begin; i < ops.size(); ++i)
        if (ops[i].iterations.empty()) ops[i].iterations = ranges(present);
  }
  p.outer_step = OuterStep{s.strategy.number("outer_lr"), s.strategy.number("outer_momentum"),
                           wire_dtype(s.strategy.text("wire_dtype"))};
  p.sequences_per_iteration *= h;
  p.tokens_per_iteration *= h;
  p.model_flops_per_iteration *= h;
  return p;
}

const StrategyRegistrar kDilocoRegistrar{{
    {"diloco",
     "DiLoCo / OpenDiLoCo: H local steps without communication, then the pseudo-gradient "
     "(weights before - after) is averaged and applied by an outer Nesterov SGD",
     with_outer_step_params({integer_param("inner_steps", 50, 1, 1e6, "local (inner) steps H per outer round"),
      choice_param("wire_dtype", "fp32", dtype_names(),
                   "pseudo-gradient dtype on the wire"),
      choice_param("averaging", "wait-for-all", {"wait-for-all", "timeout", "moshpit"},
                   "all-reduce with everyone, only the workers ready within `timeout` of "
                   "the first, or Moshpit's rotating grid groups"),
      integer_param("moshpit_dims", 2, 1, 16, "Moshpit grid axes (averaging: moshpit)"),
      choice_param("butterfly_parts", "hivemind", part_rule_names(),
                   "parts of a butterfly all-reduce (algorithm: butterfly): hivemind's load "
                   "balancing, proportional to bandwidth, or equal"),
      duration_param("timeout", 1800, ranges::kRunTime,
                     "averaging timeout (hivemind's averaging_timeout)"),
      choice_param("algorithm", "ring", collective_algorithm_names(),
                   "all-reduce algorithm (wait-for-all)"),
      compression_param()}),
     [](const Scenario& s, Diagnostics& diag, int line) {
       data_parallel_check(s, diag, line);
       compression_check(s, diag, line, false);
       if (s.strategy.text("averaging") == "moshpit" && !s.churn.absences.empty())
         diag.error(line, "strategy.averaging", "moshpit",
                    "Moshpit's grid groups are fixed: expected no churn section (use "
                    "wait-for-all or timeout with churn)");
     },
     /*supports_churn=*/true},
    StrategyLayout::data_parallel, build_diloco}};

}  // namespace

}  // namespace geotrain
