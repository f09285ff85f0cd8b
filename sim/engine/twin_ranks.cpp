#include "sim/engine/twin_ranks.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include "sim/common/overloaded.hpp"
#include "sim/common/small_math.hpp"
#include "sim/engine/collective_runner.hpp"
#include "sim/engine/sim_context.hpp"
#include "sim/workload/straggler_schedule.hpp"

namespace geotrain::engine {

namespace {

const std::vector<Op>& ops_of(const SimContext& ctx, int rank) { return ctx.program().ranks[at(rank)]; }

// Index of the rank's one collective, -1 when it has none, or a reason the run does not have the
// shape twin_ranks.hpp describes.
struct Shape {
  int collective = -1;
  std::string problem;
};

Shape shape_of(SimContext& ctx, int rank) {
  const auto& ops = ops_of(ctx, rank);
  Shape s;
  std::vector<int> unwaited;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (!op.active_in(0)) continue;
    if (s.collective >= 0) {
      if (op.as<ComputeOp>() == nullptr) s.problem = "an op other than compute after a collective";
      if (!s.problem.empty()) return s;
      continue;
    }
    if (op.as<DynamicOp>()) {
      s.problem = "dynamic ops";
    } else if (const auto* w = op.as<WaitOp>()) {
      for (int j : w->ops) std::erase(unwaited, j);
    } else if (const auto* c = op.as<CollectiveOp>()) {
      const int n = static_cast<int>(ctx.program().group(c->group).ranks.size());
      if (op.nonblocking)
        s.problem = "a nonblocking collective";
      else if (!uses_aggregated_ring(*c, n, ctx.settings()) && !runs_aggregated_direct(ctx, *c, n))
        s.problem = "a collective at message level";
      else if (!unwaited.empty())
        s.problem = "transfers still in flight at a collective";
      s.collective = static_cast<int>(i);
    } else if (op.nonblocking) {
      unwaited.push_back(static_cast<int>(i));
    }
    if (!s.problem.empty()) return s;
  }
  return s;
}

// Components: ranks joined by their sends and receives (union-find).
class Components {
 public:
  explicit Components(int n) : parent_(at(n)) { std::iota(parent_.begin(), parent_.end(), 0); }
  int find(int r) {
    while (parent_[at(r)] != r) r = parent_[at(r)] = parent_[at(parent_[at(r)])];
    return r;
  }
  void join(int a, int b) {
    a = find(a), b = find(b);
    if (a != b) parent_[at(std::max(a, b))] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

// Everything that decides a component's timeline, member by member, as raw bytes: two
// components are twins iff their keys are equal.
class KeyWriter {
 public:
  template <typename T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    key_.append(p, sizeof v);
  }
  std::string take() { return std::move(key_); }

 private:
  std::string key_;
};

class TwinFinder {
 public:
  explicit TwinFinder(SimContext& ctx) : ctx_(ctx), stragglers_(ctx.settings().stragglers) {}

  std::string key(const std::vector<int>& members) {
    KeyWriter w;
    w.put(members.size());
    for (int rank : members) {
      w.put(zone_index(rank));
      const auto& ops = ops_of(ctx_, rank);
      w.put(ops.size());
      for (std::size_t i = 0; i < ops.size(); ++i) put_op(w, members, rank, static_cast<int>(i), ops[i]);
    }
    return w.take();
  }

 private:
  int zone_index(int rank) {
    const auto* zone = ctx_.host_of_rank(rank)->get_englobing_zone();
    return zones_.try_emplace(zone, static_cast<int>(zones_.size())).first->second;
  }

  static int position_in(const std::vector<int>& members, int rank) {
    return static_cast<int>(std::lower_bound(members.begin(), members.end(), rank) - members.begin());
  }

  void put_op(KeyWriter& w, const std::vector<int>& members, int rank, int index, const Op& op) {
    w.put(op.body.index());
    w.put(op.active_in(0));
    w.put(op.nonblocking);
    std::visit(Overloaded{
                   [&](const ComputeOp& c) {
                     w.put(ctx_.compute_seconds(c, rank, 0, index) + stragglers_.sleep_s(rank, 0, index, op));
                   },
                   [&](const SendOp& s) {
                     w.put(position_in(members, s.peer)), w.put(s.bytes), w.put(s.tag);
                   },
                   [&](const RecvOp& r) {
                     w.put(position_in(members, r.peer)), w.put(r.bytes), w.put(r.tag);
                   },
                   [&](const CollectiveOp& c) {
                     w.put(c.group), w.put(c.kind), w.put(c.algorithm), w.put(c.bytes), w.put(c.tag);
                     // A root is alone in its class: its rank makes its key unique.
                     w.put(c.root == rank ? rank : -1);
                   },
                   [&](const DynamicOp&) {},
                   [&](const WaitOp& wait) {
                     w.put(wait.ops.size());
                     for (int j : wait.ops) w.put(j);
                   },
               },
               op.body);
  }

  SimContext& ctx_;
  StragglerSchedule stragglers_;
  std::unordered_map<const void*, int> zones_;
};

std::string program_wide_reason(SimContext& ctx) {
  if (ctx.settings().iterations != 1) return "more than one iteration";
  if (ctx.platform().kind != PlatformKind::regions) return "not the regions platform";
  if (ctx.shared_cpu() != nullptr) return "host cores are shared";
  if (!ctx.platform().bandwidth_changes.empty()) return "bandwidth changes";
  if (!ctx.hubs().empty()) return "point-to-point hubs";
  // A buffered send's bytes still flow after the op ended: they could meet a ring's flows.
  if (ctx.settings().buffered_sends) return "buffered sends";
  return "";
}

}  // namespace

TwinRanks find_twin_ranks(SimContext& ctx) {
  TwinRanks out;
  const int n = ctx.program().world_size;
  out.simulated = n;
  out.why_off = program_wide_reason(ctx);
  if (!out.why_off.empty()) return out;
  for (int r = 0; r < n; ++r)
    if (std::string problem = shape_of(ctx, r).problem; !problem.empty()) {
      out.why_off = "rank " + std::to_string(r) + " has " + problem;
      return out;
    }
  out.traffic_before_collective = true;
  if (!ctx.settings().twin_ranks) {
    out.why_off = "simulation.twin_ranks is false";
    return out;
  }

  Components components(n);
  for (int r = 0; r < n; ++r)
    for (const Op& op : ops_of(ctx, r)) {
      if (const auto* s = op.as<SendOp>()) components.join(r, s->peer);
      if (const auto* v = op.as<RecvOp>()) components.join(r, v->peer);
    }
  std::vector<std::vector<int>> members(at(n));  // by the component's lowest rank
  for (int r = 0; r < n; ++r) members[at(components.find(r))].push_back(r);

  TwinFinder finder(ctx);
  std::unordered_map<std::string, int> class_of;  // key -> lowest rank of the simulated component
  out.representative.resize(at(n));
  out.twins.resize(at(n));
  out.simulated = 0;
  for (int root = 0; root < n; ++root) {
    const auto& m = members[at(root)];
    if (m.empty()) continue;
    const auto [it, fresh] = class_of.try_emplace(finder.key(m), root);
    const auto& simulated = members[at(it->second)];
    for (std::size_t i = 0; i < m.size(); ++i) {
      out.representative[at(m[i])] = simulated[i];
      if (!fresh) out.twins[at(simulated[i])].push_back(m[i]);
    }
    if (fresh) out.simulated += static_cast<int>(m.size());
  }
  if (out.simulated == n) {
    out.representative.clear();
    out.twins.clear();
    out.why_off = "no two components alike";
  }
  return out;
}

void finish_twins(SimContext& ctx, int rank) {
  const auto& twins = ctx.twins_of(rank);
  if (twins.empty()) return;
  const StragglerSchedule stragglers(ctx.settings().stragglers);
  OpRecorder& records = ctx.recorder();
  // Twins' op lists match the simulated rank's op for op (their key), peers and groups aside.
  const int collective = shape_of(ctx, rank).collective;
  for (int twin : twins) {
    const auto& ops = ops_of(ctx, twin);
    const auto until = collective < 0 ? ops.size() : at(collective);
    // Up to the collective the twin's run is the simulated rank's.
    for (std::size_t i = 0; i < until; ++i) {
      const int index = static_cast<int>(i);
      OpRecord& rec = records.at(twin, 0, index);
      rec = records.at(rank, 0, index);
      if (const auto* s = ops[i].as<SendOp>(); s && rec.ran())
        ctx.routes().count_bytes(ctx.device_of_rank(twin), ctx.device_of_rank(s->peer), rec.bytes_sent);
    }
    if (collective >= 0) {
      // The collective as its plan has it for the twin's own position (what run_aggregated_ring
      // and run_aggregated_direct return and wait for): released when the last member entered,
      // done at the planned finish.
      const auto& c = *ops[until].as<CollectiveOp>();
      OpRecord& rec = records.at(twin, 0, collective);
      rec = records.at(rank, 0, collective);
      const CollectiveInstance& inst = ctx.collectives().instance(rec.collective_instance);
      const Group& g = ctx.program().group(c.group);
      const int p = ctx.position(c.group, twin);
      rec.end_s = std::max(inst.last_entry_s, inst.finish_s[at(p)]);
      rec.bytes_sent = inst.send_bytes[at(p)];
      // The aggregated ring counts each member's bytes on its link to the next member (the
      // direct forms counted every member's when they planned).
      if (uses_aggregated_ring(c, static_cast<int>(g.ranks.size()), ctx.settings()))
        ctx.routes().count_bytes(ctx.device_of_rank(twin),
                                 ctx.device_of_rank(g.ranks[at((p + 1) % static_cast<int>(g.ranks.size()))]),
                                 rec.bytes_sent);
      // Then its own compute ops, one after the other (RankActor::compute_run).
      double clock = rec.end_s;
      for (std::size_t i = until + 1; i < ops.size(); ++i) {
        if (!ops[i].active_in(0)) continue;
        const int index = static_cast<int>(i);
        OpRecord& after = records.at(twin, 0, index);
        after.start_s = clock;
        clock += ctx.compute_seconds(*ops[i].as<ComputeOp>(), twin, 0, index) +
                 stragglers.sleep_s(twin, 0, index, ops[i]);
        after.end_s = clock;
      }
    }
    ctx.finished()[at(twin)] = true;
  }
}

}  // namespace geotrain::engine
