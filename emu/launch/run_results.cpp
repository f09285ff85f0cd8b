#include "emu/launch/run_results.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "emu/launch/program_bytes.hpp"
#include "emu/worker/worker_job.hpp"
#include "sim/common/error.hpp"
#include "sim/common/iteration_intervals.hpp"
#include "sim/results/summary_head.hpp"

namespace geotrain::emu {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

nlohmann::ordered_json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json();
}

// Bytes rank r counted in each step (-1 when any op of the step was not countable).
std::vector<double> rank_step_bytes(const std::vector<RankOpRow>& rows, int steps) {
  std::vector<double> out(static_cast<std::size_t>(steps), 0);
  for (const auto& row : rows) {
    if (row.step < 0 || row.step >= steps) continue;
    auto& b = out[static_cast<std::size_t>(row.step)];
    b = (b < 0 || row.bytes < 0) ? -1 : b + row.bytes;
  }
  return out;
}

}  // namespace

RankMeasurements read_rank_measurements(const std::string& ranks_dir, int world_size) {
  RankMeasurements m;
  for (int r = 0; r < world_size; ++r) {
    m.ops.push_back(read_rank_ops(fmt::format("{}/{}/ops.csv", ranks_dir, r)));
    m.iterations.push_back(read_rank_iterations(fmt::format("{}/{}/iterations.csv", ranks_dir, r)));
  }
  return m;
}

double training_span_s(const RankMeasurements& m) {
  double first = 0, last = 0;
  bool any = false;
  for (const auto& rows : m.ops)
    for (const auto& row : rows) {
      first = any ? std::min(first, row.start_s) : row.start_s;
      last = any ? std::max(last, row.end_s) : row.end_s;
      any = true;
    }
  return last - first;
}

std::vector<StepFigures> step_figures(const Program& program, const RankMeasurements& m) {
  const auto n = static_cast<std::size_t>(program.world_size);
  if (m.iterations.size() != n || m.ops.size() != n)
    throw Error(fmt::format("measurements of {} ranks for a Program of {}", m.iterations.size(), n));
  const std::size_t steps = m.iterations[0].size();
  for (std::size_t r = 0; r < n; ++r) {
    if (m.iterations[r].size() != steps)
      throw Error(fmt::format("rank {} reported {} iterations, rank 0 {}", r, m.iterations[r].size(), steps));
    std::size_t active = 0;  // ops inactive in a step (Op::iterations) leave no row
    for (std::size_t s = 0; s < steps; ++s)
      for (const auto& op : program.ranks[r]) active += op.active_in(static_cast<int>(s)) ? 1 : 0;
    if (m.ops[r].size() != active)
      throw Error(fmt::format("rank {} recorded {} ops, expected {} (the ops active in its {} steps "
                              "of {} ops)",
                              r, m.ops[r].size(), active, steps, program.ranks[r].size()));
  }
  // The step time is the completion interval (sim/common/iteration_intervals.hpp), the figure
  // the simulator's side of `compare` uses too.
  CompletionIntervals clock(static_cast<int>(steps));
  for (const auto& rows : m.ops)
    for (const auto& row : rows) clock.add(row.step, row.start_s, row.end_s);
  const auto intervals = clock.intervals();
  std::vector<StepFigures> out(steps);
  std::vector<std::vector<double>> bytes;
  for (std::size_t r = 0; r < n; ++r) bytes.push_back(rank_step_bytes(m.ops[r], static_cast<int>(steps)));
  for (std::size_t s = 0; s < steps; ++s) {
    auto& f = out[s];
    f.step = static_cast<int>(s);
    double loss_sum = 0, bytes_sum = 0;
    int losses = 0;
    for (std::size_t r = 0; r < n; ++r) {
      const auto& it = m.iterations[r][s];
      if (!std::isnan(it.loss)) loss_sum += it.loss, ++losses;
      bytes_sum = (bytes_sum < 0 || bytes[r][s] < 0) ? -1 : bytes_sum + bytes[r][s];
    }
    f.time_s = intervals[s];
    f.loss = losses ? loss_sum / losses : std::nan("");
    f.tokens_per_s = f.time_s > 0 ? program.tokens_per_iteration / f.time_s : 0;
    f.bytes = bytes_sum;
  }
  return out;
}

int steady_steps(const RankMeasurements& m, int steps) {
  CompletionIntervals clock(steps);
  for (std::size_t r = 0; r < m.ops.size(); ++r)
    for (const auto& row : m.ops[r]) clock.add(row.step, row.start_s, row.end_s, static_cast<int>(r));
  return clock.steady_iterations();
}

// The judged steps' median, over windows of one cycle for a Program with one (judged_times).
double median_iteration_time(const std::vector<StepFigures>& steps, int warmup, int steady, int period) {
  const auto judged = judged_iterations(static_cast<int>(steps.size()), warmup, steady);
  std::vector<double> intervals;
  for (const auto& s : steps) intervals.push_back(s.time_s);
  std::vector<double> t;
  for (const auto& window : judged_times(intervals, judged, period)) t.push_back(window.second);
  return median(t);
}

nlohmann::ordered_json emu_summary_json(const Scenario& scenario, const Program& program,
                                        const RankMeasurements& m, const std::vector<StepFigures>& steps,
                                        const SummaryInputs& in) {
  const int steady = steady_steps(m, static_cast<int>(steps.size()));
  const int period = program_period(program);
  const double t = median_iteration_time(steps, in.warmup, steady, period);
  nlohmann::ordered_json j = results::summary_head(in.executor, scenario.name, program.strategy);
  j["world_size"] = program.world_size;
  j["iterations"] = steps.size();
  j["warmup_iterations"] = in.warmup;
  j["steady_iterations"] = steady;
  if (period > 1) j["iteration_period"] = period;  // compare judges windows of one cycle
  j["collectives"] = in.collectives;
  j["device"] = in.device;
  j["backend"] = in.backend;
  if (!in.network.empty()) j["network"] = in.network;
  j["host_cores"] = in.host_cores;
  j["torch_threads"] = scenario.emulation.torch_threads;
  j["iteration_time_s"] = t;
  j["tokens_per_s"] = t > 0 ? program.tokens_per_iteration / t : 0;
  j["samples_per_s"] = t > 0 ? program.sequences_per_iteration / t : 0;
  results::add_workload_figures(j, program);
  // Filled apart, then moved in: `times` as a reference into j would dangle once "loss" is added
  // (ordered_json keeps its members in a vector).
  auto times = nlohmann::ordered_json::array(), loss = nlohmann::ordered_json::array();
  for (const auto& s : steps) times.push_back(s.time_s), loss.push_back(number_or_null(s.loss));
  j["iteration_times_s"] = std::move(times);
  j["loss"] = std::move(loss);
  // Bytes: what the workers counted against what the Program says each rank sends.
  // Per step: a Program whose ops have iteration ranges (DiLoCo churn) differs between steps.
  const DType wire = pseudo_gradient_dtype(program, scenario.model.gradient_dtype);
  std::vector<std::vector<double>> expected_in_step;  // [step][rank]
  for (std::size_t s = 0; s < steps.size(); ++s)
    expected_in_step.push_back(program_bytes_per_rank(
        has_iteration_ranges(program) ? program_in_iteration(program, static_cast<int>(s)) : program,
        scenario.model.gradient_dtype, wire));
  const auto expected = expected_in_step.empty()
                            ? program_bytes_per_rank(program, scenario.model.gradient_dtype, wire)
                            : expected_in_step.front();
  auto& ranks = j["ranks"] = nlohmann::ordered_json::array();
  bool all_match = true;
  double expected_total = 0;
  for (int r = 0; r < program.world_size; ++r) {
    const auto counted = rank_step_bytes(m.ops[static_cast<std::size_t>(r)], static_cast<int>(steps.size()));
    const double e = expected[static_cast<std::size_t>(r)];
    bool match = e >= 0;
    for (std::size_t k = 0; k < counted.size(); ++k)
      match = match && expected_in_step[k][static_cast<std::size_t>(r)] >= 0 &&
              counted[k] == expected_in_step[k][static_cast<std::size_t>(r)];
    all_match = all_match && match;
    expected_total = (expected_total < 0 || e < 0) ? -1 : expected_total + e;
    double compute = 0;
    for (const auto& row : m.ops[static_cast<std::size_t>(r)]) {
      const Op& op = program.ranks[static_cast<std::size_t>(r)].at(static_cast<std::size_t>(row.op));
      if (row.step >= in.warmup && op.as<ComputeOp>()) compute += row.end_s - row.start_s;
    }
    const auto measured_steps = std::max<std::size_t>(steps.size() - static_cast<std::size_t>(in.warmup), 1);
    auto entry = results::rank_entry(program, r);
    entry["compute_s"] = compute / static_cast<double>(measured_steps);
    entry["program_bytes_per_iteration"] = number_or_null(e < 0 ? NAN : e);
    entry["counted_bytes_per_iteration"] =
        counted.empty() || counted[0] < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(counted[0]);
    entry["bytes_match"] = match;
    ranks.push_back(std::move(entry));
  }
  j["bytes"] = {{"program_per_iteration", number_or_null(expected_total < 0 ? NAN : expected_total)},
                {"counted_per_iteration", steps.empty() || steps[0].bytes < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(steps[0].bytes)},
                {"match", all_match}};
  if (has_iteration_ranges(program)) {  // the steps differ: every step's figures
    // Built apart: ordered_json's members live in a vector, a reference into it would dangle.
    auto per_step = nlohmann::ordered_json::array(), counted = nlohmann::ordered_json::array();
    for (std::size_t k = 0; k < steps.size(); ++k) {
      double sum = 0;
      for (double b : expected_in_step[k]) sum = (sum < 0 || b < 0) ? -1 : sum + b;
      per_step.push_back(number_or_null(sum < 0 ? NAN : sum));
      counted.push_back(number_or_null(steps[k].bytes < 0 ? NAN : steps[k].bytes));
    }
    j["bytes"]["program_per_step"] = std::move(per_step);
    j["bytes"]["counted_per_step"] = std::move(counted);
  }
  j["wall_s"] = in.wall_s;
  j["workers_wall_s"] = in.workers_wall_s;
  return j;
}

}  // namespace geotrain::emu
