#include "sim/engine/metrics.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "sim/common/iteration_intervals.hpp"
#include "sim/engine/collective_runner.hpp"
#include "sim/engine/dynamic_runner.hpp"
#include "sim/engine/network_config.hpp"

namespace geotrain::engine {

double overlap_s(double a, double b, double from, double to) {
  return std::max(0.0, std::min(b, to) - std::max(a, from));
}

namespace {

const Op& op_at(const Program& p, int rank, int index) {
  return p.ranks[static_cast<std::size_t>(rank)][static_cast<std::size_t>(index)];
}

// Collectives wait for the group's last member: fill their waiting interval from the registry.
void fill_collective_intervals(SimContext& ctx) {
  const Program& p = ctx.program();
  OpRecorder& rec = ctx.recorder();
  for (int r = 0; r < p.world_size; ++r)
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        OpRecord& o = rec.at(r, it, static_cast<int>(i));
        if (o.collective_instance < 0) continue;
        const auto& inst = ctx.collectives().instance(o.collective_instance);
        const auto* c = op_at(p, r, static_cast<int>(i)).as<CollectiveOp>();
        o.idle_from_s = inst.entry_s[static_cast<std::size_t>(ctx.position(c->group, r))];
        o.idle_to_s = inst.last_entry_s;
      }
}

// Idle charged to each blocking op (a Wait: the largest waiting overlap among its ops).
void charge_idle(SimContext& ctx) {
  const Program& p = ctx.program();
  OpRecorder& rec = ctx.recorder();
  for (int r = 0; r < p.world_size; ++r)
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const Op& op = op_at(p, r, static_cast<int>(i));
        OpRecord& o = rec.at(r, it, static_cast<int>(i));
        if (op.nonblocking || op.as<ComputeOp>() != nullptr) continue;
        if (const auto* w = op.as<WaitOp>()) {
          for (int j : w->ops) {
            const OpRecord& x = rec.at(r, it, j);
            o.idle_s = std::max(o.idle_s, overlap_s(o.start_s, o.end_s, x.idle_from_s, x.idle_to_s));
          }
        } else {
          o.idle_s = overlap_s(o.start_s, o.end_s, o.idle_from_s, o.idle_to_s);
        }
      }
}

void rank_splits(SimContext& ctx, SimulationResult& res) {
  const Program& p = ctx.program();
  const OpRecorder& rec = ctx.recorder();
  const double n_it = rec.iterations();
  for (int r = 0; r < p.world_size; ++r) {
    RankSplit s;
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const Op& op = op_at(p, r, static_cast<int>(i));
        const OpRecord& o = rec.at(r, it, static_cast<int>(i));
        if (op.nonblocking) continue;
        const double d = std::max(0.0, o.end_s - o.start_s);
        if (op.as<ComputeOp>() != nullptr) s.compute_s += d;
        else s.communication_s += d - o.idle_s;
      }
    s.idle_s = std::max(0.0, res.makespan_s - s.compute_s - s.communication_s);
    s.compute_s /= n_it, s.communication_s /= n_it, s.idle_s /= n_it;
    res.ranks.push_back(s);
  }
}

void timeline(SimContext& ctx, SimulationResult& res) {
  const OpRecorder& rec = ctx.recorder();
  res.iteration_end_s.assign(static_cast<std::size_t>(rec.iterations()), 0.0);
  // The same pass finds the drain of an asynchronous run (iteration_intervals.hpp) from the ops
  // each rank ran.
  CompletionIntervals clock(rec.iterations());
  for (int r = 0; r < rec.ranks(); ++r)
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const OpRecord& o = rec.at(r, it, static_cast<int>(i));
        auto& end = res.iteration_end_s[static_cast<std::size_t>(it)];
        end = std::max(end, o.end_s);
        if (o.ran()) clock.add(it, 0.0, o.end_s, r);
      }
  for (std::size_t it = 1; it < res.iteration_end_s.size(); ++it)
    res.iteration_end_s[it] = std::max(res.iteration_end_s[it], res.iteration_end_s[it - 1]);
  res.steady_iterations = clock.steady_iterations();
  res.makespan_s = res.iteration_end_s.empty() ? 0 : res.iteration_end_s.back();
  res.iteration_time_s = res.makespan_s / std::max(1, rec.iterations());
}

void bubble(SimContext& ctx, SimulationResult& res) {
  const Program& p = ctx.program();
  const OpRecorder& rec = ctx.recorder();
  bool pipeline = false;
  for (const auto& ops : p.ranks)
    for (const auto& op : ops)
      if (const auto* c = op.as<ComputeOp>()) pipeline |= c->stage > 0;
  if (!pipeline) return;
  double sum = 0;
  for (int it = 0; it < rec.iterations(); ++it) {
    const double t0 = it == 0 ? 0 : res.iteration_end_s[static_cast<std::size_t>(it - 1)];
    double phase_end = t0, busy = 0;
    int members = 0;
    for (int r = 0; r < p.world_size; ++r) {
      double rank_busy = 0;
      bool any = false;
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const auto* c = op_at(p, r, static_cast<int>(i)).as<ComputeOp>();
        if (c == nullptr || (c->kind != ComputeKind::forward && c->kind != ComputeKind::backward)) continue;
        const OpRecord& o = rec.at(r, it, static_cast<int>(i));
        rank_busy += o.end_s - o.start_s;
        phase_end = std::max(phase_end, o.end_s);
        any = true;
      }
      if (any) busy += rank_busy, ++members;
    }
    if (members > 0 && phase_end > t0) sum += 1 - busy / members / (phase_end - t0);
  }
  res.bubble_fraction = sum / rec.iterations();
}

void bytes(SimContext& ctx, SimulationResult& res) {
  const Program& p = ctx.program();
  const OpRecorder& rec = ctx.recorder();
  std::map<std::pair<std::string, std::string>, CollectiveBytes> coll;
  for (int r = 0; r < p.world_size; ++r)
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const Op& op = op_at(p, r, static_cast<int>(i));
        const OpRecord& o = rec.at(r, it, static_cast<int>(i));
        if (!o.ran()) continue;
        if (op.as<SendOp>() != nullptr) res.p2p_bytes += o.bytes_sent;
        if (op.as<DynamicOp>() != nullptr) res.dynamic_bytes += o.bytes_sent;
        const auto* c = op.as<CollectiveOp>();
        if (c == nullptr) continue;
        const Group& g = p.group(c->group);
        auto& cb = coll[{g.name, op.label}];
        if (cb.instances == 0) {
          const int n = static_cast<int>(g.ranks.size());
          cb = {g.name, op.label, to_string(c->kind), to_string(modelled_algorithm(*c, ctx.settings())), n, 0, 0};
          if (uses_aggregated_ring(*c, n, ctx.settings()) || runs_aggregated_direct(ctx, *c, n))
            cb.algorithm += " (aggregated)";
        }
        ++cb.instances;
        cb.bytes_sent += o.bytes_sent;
        res.collective_bytes_total += o.bytes_sent;
      }
  for (auto& [key, cb] : coll) res.collective_bytes.push_back(std::move(cb));
  const auto& names = ctx.routes().link_names();
  const auto& b = ctx.routes().link_bytes();
  for (std::size_t l = 0; l < names.size(); ++l)
    if (b[l] > 0) res.link_bytes.push_back({names[l], b[l]});
  std::sort(res.link_bytes.begin(), res.link_bytes.end(),
            [](const LinkBytes& x, const LinkBytes& y) { return x.link < y.link; });
}

}  // namespace

SimulationResult summarize(SimContext& ctx, const Scenario& scenario) {
  const Program& p = ctx.program();
  SimulationResult res;
  res.scenario = scenario.name;
  res.strategy = p.strategy;
  res.network_model = network_model_name(ctx.settings().network_model);
  res.platform = to_string(ctx.platform().kind);
  res.warnings = ctx.platform().warnings;
  res.bandwidth_changes = ctx.platform().bandwidth_changes;
  res.world_size = p.world_size;
  res.iteration_period = program_period(p);
  res.iterations = ctx.recorder().iterations();
  fill_collective_intervals(ctx);
  charge_idle(ctx);
  timeline(ctx, res);
  rank_splits(ctx, res);
  bubble(ctx, res);
  bytes(ctx, res);
  if (res.iteration_time_s > 0) {
    res.tokens_per_s = p.tokens_per_iteration / res.iteration_time_s;
    res.samples_per_s = p.sequences_per_iteration / res.iteration_time_s;
    res.achieved_flops = p.model_flops_per_iteration / res.iteration_time_s;
  }
  res.records = std::move(ctx.recorder());
  res.dynamic_decisions = ctx.dynamic().take_decisions();
  if (const double entries = results::dynamic_csv_entries(res.dynamic_decisions);
      entries > results::kDynamicCsvMaxEntries) {
    res.warnings.push_back(fmt::format(
        "dynamic.csv not written: its rows would list {:.3g} members (windows of thousands of "
        "ranks; the limit is {:.3g})", entries, results::kDynamicCsvMaxEntries));
    res.dynamic_decisions.clear();
  }
  return res;
}

}  // namespace geotrain::engine
