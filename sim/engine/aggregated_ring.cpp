#include "sim/engine/aggregated_ring.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>

#include "sim/common/small_math.hpp"
#include "sim/engine/ring_walk.hpp"
#include "sim/engine/sim_context.hpp"
#include "sim/program/collective_schedule.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

namespace {

// The load link p -> p+1 carries as one flow from t0 (the last entry) to the link's planned end:
// its bytes, capped so that alone it cannot end later than planned (links may already have
// moved chunks before t0 in the message-level ring). Sender and receiver compute the same value.
double flow_bytes(SimContext& ctx, const CollectiveInstance& inst, int p, int n, int src, int dst,
                  double t0) {
  const auto up = static_cast<std::size_t>(mod(p, n));
  const double room_s = inst.link_end_s[up] - t0 - ctx.flow_latency_s(src, dst);
  if (room_s <= 0) return 0;
  return std::floor(std::min(inst.send_bytes[up], room_s * ctx.flow_rate_Bps(src, dst) * (1 - 1e-9)));
}

}  // namespace

RingPlan plan_ring(CollectiveKind kind, const std::vector<double>& entry_s, std::size_t count,
                   const StepSeconds& step_seconds, int closed_form_above) {
  const int n = static_cast<int>(entry_s.size());
  const auto un = static_cast<std::size_t>(n);
  RingPlan plan;
  plan.finish_s = entry_s;
  plan.link_end_s = entry_s;
  plan.send_bytes.assign(un, 0.0);
  if (n < 2) return plan;
  std::vector<bool> phases;  // true = reduce-scatter phase
  if (kind != CollectiveKind::allgather) phases.push_back(true);
  if (kind != CollectiveKind::reduce_scatter) phases.push_back(false);

  // Chunks have at most a few distinct sizes (floor or ceil of count / n): the step time of
  // link p for each size is looked up once (2n calls), not once per step (2n(n-1) calls).
  std::vector<double> sizes;
  std::vector<int> size_of(2 * un);  // twice over: size_of[p + shift] needs no modulo
  double total = 0;
  for (int q = 0; q < n; ++q) {
    const double b = static_cast<double>(chunk_range(count, n, q).count);
    total += b;
    auto it = std::find(sizes.begin(), sizes.end(), b);
    if (it == sizes.end()) it = sizes.insert(sizes.end(), b);
    size_of[static_cast<std::size_t>(q)] = size_of[static_cast<std::size_t>(q) + un] =
        static_cast<int>(it - sizes.begin());
  }
  std::vector<double> step(sizes.size() * un);
  for (std::size_t k = 0; k < sizes.size(); ++k)
    for (int p = 0; p < n; ++p) step[k * un + static_cast<std::size_t>(p)] = step_seconds(p, sizes[k]);

  // Byte counts are integers far below 2^53, so sums are exact in any order: in a phase every
  // member sends every chunk but one (its own in reduce-scatter, its successor's in all-gather).
  for (bool rs : phases)
    for (int p = 0; p < n; ++p)
      plan.send_bytes[static_cast<std::size_t>(p)] +=
          total - static_cast<double>(chunk_range(count, n, rs ? p : mod(p + 1, n)).count);

  // e(p,k) = max(s(p,k), s(p+1,k)) + T(p,k) and s(p,k+1) = max(e(p,k), e(p-1,k)) fuse into
  // e(p,k+1) = max(e(p-1,k), e(p,k), e(p+1,k)) + T(p,k+1): one pass per step (max is exact,
  // so the values are bit for bit those of the two-pass form).
  std::vector<double> e(un), next(un);
  if (kind == CollectiveKind::allreduce && n > closed_form_above && n >= 3) {
    // Step 0 exactly as below; then 2N-3 steps of the mean chunk in closed form.
    const auto shift = static_cast<std::size_t>(mod(-1, n));
    for (std::size_t p = 0; p < un; ++p)
      e[p] = std::max(entry_s[p], entry_s[(p + 1) % un]) +
             step[static_cast<std::size_t>(size_of[p + shift]) * un + p];
    std::vector<double> mean_step(un);
    for (int p = 0; p < n; ++p)
      mean_step[static_cast<std::size_t>(p)] = step_seconds(p, total / static_cast<double>(n));
    if (auto walked = ring_walk_max(e, mean_step, 2L * n - 3)) {
      plan.link_end_s = std::move(*walked);
      for (std::size_t p = 0; p < un; ++p)
        plan.finish_s[p] = std::max(plan.link_end_s[p], plan.link_end_s[(p + un - 1) % un]);
      return plan;
    }
  }
  bool first = true;
  for (bool rs : phases) {
    for (int j = 0; j < n - 1; ++j) {
      // The chunk p sends in step j: (p - j - 1) mod n in reduce-scatter, (p - j) mod n after.
      const auto shift = static_cast<std::size_t>(mod(rs ? -j - 1 : -j, n));
      const int* sz = size_of.data() + shift;
      auto t = [&](std::size_t p) { return step[static_cast<std::size_t>(sz[p]) * un + p]; };
      if (first) {
        const auto& s = entry_s;
        for (std::size_t p = 0; p < un; ++p) e[p] = std::max(s[p], s[(p + 1) % un]) + t(p);
        first = false;
        continue;
      }
      next[0] = std::max({e[un - 1], e[0], e[1 % un]}) + t(0);
      for (std::size_t p = 1; p + 1 < un; ++p) next[p] = std::max(std::max(e[p - 1], e[p]), e[p + 1]) + t(p);
      next[un - 1] = std::max({e[un - 2], e[un - 1], e[0]}) + t(un - 1);
      e.swap(next);
    }
  }
  plan.link_end_s = e;
  for (std::size_t p = 0; p < un; ++p) plan.finish_s[p] = std::max(e[p], e[(p + un - 1) % un]);
  return plan;
}

double run_aggregated_ring(SimContext& ctx, int rank, const CollectiveOp& op, int instance) {
  const Group& g = ctx.program().group(op.group);
  return run_aggregated_ring(ctx, rank, g, ctx.position(op.group, rank), op.kind, op.bytes,
                             instance, op.group);
}

double run_aggregated_ring(SimContext& ctx, int rank, const Group& g, int p, CollectiveKind kind,
                           double buffer_bytes, int instance, int mailbox_key) {
  const int n = static_cast<int>(g.ranks.size());
  if (n < 2) return 0;
  auto device = [&](int position) { return ctx.device_of_rank(g.ranks[static_cast<std::size_t>(mod(position, n))]); };
  CollectiveInstance& inst = ctx.collectives().instance(instance);
  await_all_members(inst, n, [&] {
    const auto count = static_cast<std::size_t>(std::llround(buffer_bytes));
    // Per-link latency and rate looked up once: the recurrence evaluates N x 2(N-1) steps.
    std::vector<double> latency(static_cast<std::size_t>(n)), rate(static_cast<std::size_t>(n));
    for (int q = 0; q < n; ++q) {
      latency[static_cast<std::size_t>(q)] = ctx.flow_latency_s(device(q), device(q + 1));
      rate[static_cast<std::size_t>(q)] = ctx.flow_rate_Bps(device(q), device(q + 1));
    }
    RingPlan plan = plan_ring(kind, inst.entry_s, count, [&](int q, double bytes) {
      const auto i = static_cast<std::size_t>(q);
      return latency[i] + bytes / rate[i];
    }, ctx.settings().ring_closed_form_above);
    inst.finish_s = std::move(plan.finish_s);
    inst.link_end_s = std::move(plan.link_end_s);
    inst.send_bytes = std::move(plan.send_bytes);
  });
  const double t0 = sg4::Engine::get_clock();
  const auto up = static_cast<std::size_t>(p);
  if (!ctx.ring_flows_meet_traffic()) {
    // Nothing else on the network (SimContext::ring_flows_meet_traffic): the flows would end
    // at their planned ends; only their bytes are counted.
    ctx.routes().count_bytes(device(p), device(p + 1), inst.send_bytes[up]);
    if (t0 < inst.finish_s[up]) sg4::this_actor::sleep_until(inst.finish_s[up]);
    return inst.send_bytes[up];
  }
  const auto prev = static_cast<std::size_t>(mod(p - 1, n));
  std::vector<sg4::CommPtr> comms;
  void* sink = nullptr;
  if (flow_bytes(ctx, inst, mod(p - 1, n), n, device(p - 1), device(p), t0) > 0)
    comms.push_back(ctx.collective_mailbox(g.ranks[prev], rank, mailbox_key)->get_async<void>(&sink));
  const double bytes = inst.send_bytes[up];
  ctx.routes().count_bytes(device(p), device(p + 1), bytes);
  const double load = flow_bytes(ctx, inst, p, n, device(p), device(p + 1), t0);
  if (load > 0) {
    const int next = g.ranks[static_cast<std::size_t>(mod(p + 1, n))];
    auto comm = ctx.collective_mailbox(rank, next, mailbox_key)
                    ->put_init(&kNoPayload, static_cast<std::uint64_t>(load));
    comm->set_rate(load / (inst.link_end_s[up] - t0 - ctx.flow_latency_s(device(p), device(p + 1))));
    comm->start();
    comms.push_back(comm);
  }
  sg4::Comm::wait_all(comms);
  if (sg4::Engine::get_clock() < inst.finish_s[up]) sg4::this_actor::sleep_until(inst.finish_s[up]);
  return bytes;
}

}  // namespace geotrain::engine
