// The merged ops.csv, trace.json and compute-profile samples of a run (conventions in
// run_results.hpp): the workers' rows, in Program order, handed to sim/results' writers; and
// write_run_results, every result file of a run (emulate's and real run's).
#include <algorithm>
#include <fstream>
#include <optional>

#include <fmt/format.h>

#include "emu/launch/host_cpu_figures.hpp"
#include "emu/launch/run_results.hpp"
#include "sim/results/dynamic_csv.hpp"
#include "sim/results/ops_csv_writer.hpp"
#include "sim/results/result_file.hpp"
#include "sim/results/trace_writer.hpp"
#include "sim/workload/straggler_schedule.hpp"

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

// The Dynamic ops' run-time decisions of every rank in one file (rank column first), to be
// compared with the simulator's rounds; nothing when the Program has no Dynamic op.
void merge_dynamic_decisions(const std::string& dir, int ranks) {
  std::string merged;
  for (int r = 0; r < ranks; ++r) {
    std::ifstream in(fmt::format("{}/ranks/{}/dynamic.csv", dir, r));
    std::string line;
    if (!in || !std::getline(in, line)) continue;  // header
    while (std::getline(in, line)) merged += fmt::format("{},{}\n", r, line);
  }
  // The header the simulator writes too (sim/results/dynamic_csv.hpp): the files compare alike.
  if (!merged.empty())
    results::write_result_text(dir + "/dynamic.csv", results::kDynamicCsvHeader + merged);
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
                                           const std::vector<double>& slowdown_of_rank,
                                           const StragglerSpec& stragglers) {
  const StragglerSchedule schedule(stragglers);
  std::vector<ProfileSample> out;
  for (int r = 0; r < program.world_size; ++r) {
    // The profile is device-neutral: the simulator multiplies it by each device's slowdown again.
    const double slowdown = static_cast<std::size_t>(r) < slowdown_of_rank.size()
                                ? slowdown_of_rank[static_cast<std::size_t>(r)] : 1.0;
    for (const RankOpRow* row : ordered(m.ops[static_cast<std::size_t>(r)])) {
      const Op& op = program.ranks[static_cast<std::size_t>(r)].at(static_cast<std::size_t>(row->op));
      const auto* c = op.as<ComputeOp>();
      if (!c) continue;
      // The worker sleeps the seeded straggler draw inside the op's measured time, before the
      // work (interpreter.cpp); the simulator sleeps the same draw on top of the profiled time
      // (rank_actor.cpp), so the profile holds the work alone, not the sleep a second time.
      const double sleep_s = schedule.sleep_s(r, row->step, row->op, op);
      const double work_s = std::max(0.0, row->end_s - row->start_s - sleep_s);
      // CPU time is not divided: the worker's slowdown is a sleep, which uses none.
      // Warm-up steps are kept apart (the simulation replays them for its own warm-up).
      out.push_back({*c, work_s / slowdown, row->cpu_s, {r, row->step, row->op}, row->step < warmup});
    }
  }
  return out;
}

nlohmann::ordered_json write_run_results(const Scenario& s, const Program& program, const std::string& dir,
                                         const RankMeasurements& m, const SummaryInputs& in) {
  const auto figures = step_figures(program, m);
  { auto f = results::open_result_file(dir + "/ops.csv"); write_ops_csv(program, m, f); }
  { auto f = results::open_result_file(dir + "/iterations.csv"); results::write_iterations_csv(figures, f); }
  { auto f = results::open_result_file(dir + "/trace.json"); write_trace(program, m, f); }
  merge_dynamic_decisions(dir, program.world_size);
  const auto& device = s.devices.at(static_cast<std::size_t>(program.device_of_rank[0]));
  std::vector<double> slowdown_of_rank;
  for (int d : program.device_of_rank) slowdown_of_rank.push_back(s.devices.at(static_cast<std::size_t>(d)).slowdown);
  const auto host = host_cpu_figures(m, in.warmup, in.host_cores);
  const auto samples = profile_samples(program, m, in.warmup, slowdown_of_rank, s.stragglers);
  write_compute_profile(dir + "/compute_profile.json", summarize_samples(samples),
                        s.model.preset, device.profile, host ? &*host : nullptr);
  auto summary = emu_summary_json(s, program, m, figures, in);
  results::write_result_text(dir + "/summary.json", summary.dump(2) + "\n");
  return summary;
}

}  // namespace geotrain::emu
