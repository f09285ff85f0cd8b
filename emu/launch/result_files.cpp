// The merged ops.csv, trace.json and compute-profile samples of a run (conventions in
// run_results.hpp): the workers' rows, in Program order, handed to sim/results' writers.
#include <algorithm>
#include <optional>

#include "emu/launch/run_results.hpp"
#include "sim/results/ops_csv_writer.hpp"
#include "sim/results/trace_writer.hpp"

namespace geotrain::emu {

namespace {

// A rank's rows in (step, op) order: workers record nonblocking ops when they complete.
std::vector<const RankOpRow*> ordered(const std::vector<RankOpRow>& rows) {
  std::vector<const RankOpRow*> out;
  for (const auto& r : rows) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [](const RankOpRow* a, const RankOpRow* b) {
    return a->step != b->step ? a->step < b->step : a->op < b->op;
  });
  return out;
}

// Every measured op as a results row, rank by rank in (step, op) order. The rank is the one
// whose file the row came from, as the Program numbers it; the emulator cannot split waiting from
// moving (no idle_s) and cannot count a library collective's bytes (worker's -1: none).
template <class Visit>
void for_each_row(const Program& program, const RankMeasurements& m, Visit&& visit) {
  for (int r = 0; r < program.world_size; ++r)
    for (const RankOpRow* row : ordered(m.ops[static_cast<std::size_t>(r)]))
      visit(results::OpRow{r, row->step, static_cast<std::size_t>(row->op), row->start_s, row->end_s,
                           std::nullopt, row->bytes < 0 ? std::nullopt : std::optional<double>(row->bytes)});
}

}  // namespace

void write_ops_csv(const Program& program, const RankMeasurements& m, std::ostream& out) {
  results::OpsCsvWriter writer(out, program, results::TimeFormat::nanoseconds);
  for_each_row(program, m, [&](const results::OpRow& row) { writer.add(row); });
}

void write_trace(const Program& program, const RankMeasurements& m, std::ostream& out) {
  results::TraceWriter writer(out, program, results::TimeFormat::nanoseconds);
  for_each_row(program, m, [&](const results::OpRow& row) { writer.add(row); });
  writer.finish();
}

std::vector<ProfileSample> profile_samples(const Program& program, const RankMeasurements& m, int warmup,
                                           const std::vector<double>& slowdown_of_rank) {
  std::vector<ProfileSample> out;
  for (int r = 0; r < program.world_size; ++r) {
    // The profile is device-neutral: the simulator multiplies it by each device's slowdown again.
    const double slowdown = static_cast<std::size_t>(r) < slowdown_of_rank.size()
                                ? slowdown_of_rank[static_cast<std::size_t>(r)] : 1.0;
    for (const RankOpRow* row : ordered(m.ops[static_cast<std::size_t>(r)])) {
      if (row->step < warmup) continue;
      const Op& op = program.ranks[static_cast<std::size_t>(r)].at(static_cast<std::size_t>(row->op));
      if (const auto* c = op.as<ComputeOp>()) out.push_back({*c, (row->end_s - row->start_s) / slowdown});
    }
  }
  return out;
}

}  // namespace geotrain::emu
