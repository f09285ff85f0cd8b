#include "emu/launch/host_cpu_figures.hpp"

#include <algorithm>
#include <cmath>

namespace geotrain::emu {

namespace {

// Rank 0's end of `step`: its last op's end (the step's own row has only its duration).
std::optional<double> step_end_s(const std::vector<RankOpRow>& ops, int step) {
  std::optional<double> end;
  for (const auto& op : ops)
    if (op.step == step) end = std::max(end.value_or(op.end_s), op.end_s);
  return end;
}

std::optional<double> busy_at(const std::vector<RankIterationRow>& rows, int step) {
  for (const auto& r : rows)
    if (r.step == step && std::isfinite(r.host_busy_s)) return r.host_busy_s;
  return std::nullopt;
}

}  // namespace

std::optional<ProfileHost> host_cpu_figures(const RankMeasurements& m, int warmup, int cores) {
  if (cores <= 0 || m.ops.empty() || m.iterations.empty() || warmup < 1) return std::nullopt;
  const auto& its = m.iterations[0];
  int last = -1;
  for (const auto& r : its) last = std::max(last, r.step);
  const int first = warmup - 1;  // the span starts where the warm-up ends
  if (last <= first) return std::nullopt;
  const auto t0 = step_end_s(m.ops[0], first), t1 = step_end_s(m.ops[0], last);
  const auto b0 = busy_at(its, first), b1 = busy_at(its, last);
  if (!t0 || !t1 || !b0 || !b1 || *t1 <= *t0) return std::nullopt;
  ProfileHost h;
  h.cores = cores;
  h.span_s = *t1 - *t0;
  h.busy_core_s = *b1 - *b0;
  for (const auto& rank : m.ops)
    for (const auto& op : rank)
      if (std::isfinite(op.cpu_s) && op.start_s >= *t0 && op.end_s <= *t1) h.compute_core_s += op.cpu_s;
  // /proc/stat counts in 10 ms ticks: on short spans the difference can dip below 0.
  h.background_cores = std::clamp((h.busy_core_s - h.compute_core_s) / h.span_s, 0.0, static_cast<double>(cores));
  return h;
}

}  // namespace geotrain::emu
