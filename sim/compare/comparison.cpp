#include "sim/compare/comparison.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/common/error.hpp"
#include "sim/common/iteration_intervals.hpp"
#include "sim/compare/error_stats.hpp"
#include "sim/results/summary_reader.hpp"

namespace geotrain::compare {

namespace {

RunFiles read_common(const std::string& dir, const nlohmann::json& j) {
  RunFiles r;
  r.dir = dir;
  r.scenario = j.value("scenario", "");
  r.strategy = j.value("strategy", "");
  r.world_size = j.value("world_size", 0);
  r.iteration_time_s = j.value("iteration_time_s", 0.0);
  r.ops = results::read_ops_csv(dir + "/ops.csv");
  return r;
}

// Completion intervals (sim/common/iteration_intervals.hpp) of the run's `iterations` from its
// op records; the compared ones are judged_iterations' (the warm-up and an asynchronous run's
// drain left out).
// A Program with a cycle (summary.json's iteration_period, Moshpit) is judged by the means of
// one cycle's intervals (judged_times).
void compared_iterations(RunFiles& r, int iterations, int warmup, int period) {
  CompletionIntervals clock(iterations);
  for (const auto& op : r.ops) clock.add(op.iteration, op.start_s, op.end_s, op.rank);
  const auto intervals = clock.intervals();
  r.steady_iterations = clock.steady_iterations();
  r.total_iterations = iterations;
  r.iteration_period = period;
  const auto judged = judged_iterations(iterations, warmup, r.steady_iterations);
  r.iterations.clear();
  r.iteration_times_s.clear();
  for (int i = judged.first; i < judged.last; ++i) r.iterations.push_back(i);  // attributed, matched
  for (const auto& window : judged_times(intervals, judged, period)) r.iteration_times_s.push_back(window.second);
}

// Iterations after the compared ones: the drain (none when compared_iterations fell back to all).
int drain_of(const RunFiles& r) {
  return r.iterations.empty() ? 0 : std::max(0, r.total_iterations - r.iterations.back() - 1);
}

nlohmann::ordered_json runs_json(const std::vector<EnsembleRun>& runs, bool seeded) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& r : runs) {
    nlohmann::ordered_json j{{"dir", r.dir}};
    if (seeded) j["variance_seed"] = r.seed;
    j["iteration_time_s"] = r.median_s;
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::ordered_json split_json(const Split& s) {
  return {{"compute_s", s.compute_s}, {"communication_s", s.communication_s},
          {"waiting_s", s.waiting_s}, {"other_s", s.other_s}};
}

}  // namespace

RunFiles read_measured_run(const std::string& dir) {
  const auto j = results::read_summary(dir);
  if (!results::is_measuring_executor(results::summary_executor(j)))
    throw InputError(fmt::format("{}/summary.json: format '{}' (expected a measured run: "
                                 "'geotrain-emu-summary' from emulate or 'geotrain-real-summary' "
                                 "from real run)", dir, j.value("format", "")));
  RunFiles r = read_common(dir, j);
  r.executor = results::summary_executor(j);
  r.collectives = j.value("collectives", "");
  r.device = j.value("device", "");
  r.network = j.value("network", "");
  r.host_cores = j.value("host_cores", 0);
  r.torch_threads = j.value("torch_threads", 0);
  r.warmup = j.value("warmup_iterations", 0);
  compared_iterations(r, j.value("iterations", 0), r.warmup, j.value("iteration_period", 1));
  return r;
}

RunFiles read_predicted_run(const std::string& dir, int warmup) {
  const auto j = results::read_summary(dir);
  RunFiles r = read_common(dir, j);
  r.warmup = warmup;
  compared_iterations(r, j.value("iterations", 1), warmup, j.value("iteration_period", 1));
  r.iteration_time_s = median(r.iteration_times_s);
  return r;
}

Comparison compare_runs(const RunFiles& measured, const std::vector<RunFiles>& predicted,
                        const std::vector<std::string>& model_names) {
  Comparison c;
  c.scenario = measured.scenario;
  c.strategy = measured.strategy;
  c.world_size = measured.world_size;
  c.measured_dir = measured.dir;
  c.measured_executor = measured.executor;
  c.measured_s = median(measured.iteration_times_s);
  c.measured_mean_s = mean(measured.iteration_times_s);
  c.measured_min_s = quantile(measured.iteration_times_s, 0);
  c.measured_max_s = quantile(measured.iteration_times_s, 1);
  c.measured_p10_s = quantile(measured.iteration_times_s, 0.1);
  c.measured_p90_s = quantile(measured.iteration_times_s, 0.9);
  c.measured_iterations = static_cast<int>(measured.iteration_times_s.size());
  c.iteration_period = measured.iteration_period;
  c.measured_drain_iterations = drain_of(measured);
  c.measured_split = attribute(measured.ops, measured.iterations, c.measured_s);
  c.measured_runs = {{measured.dir, 0, c.measured_s}};  // compare_ensembles adds the others
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const RunFiles& p = predicted[i];
    ModelComparison m;
    m.network_model = model_names.at(i);
    m.dir = p.dir;
    m.predicted_s = p.iteration_time_s;
    m.error_pct = error_pct(m.predicted_s, c.measured_s);
    m.predicted_mean_s = mean(p.iteration_times_s);
    m.mean_error_pct = error_pct(m.predicted_mean_s, c.measured_mean_s);
    m.predicted_p10_s = quantile(p.iteration_times_s, 0.1);
    m.predicted_p90_s = quantile(p.iteration_times_s, 0.9);
    m.p90_error_pct = error_pct(m.predicted_p90_s, c.measured_p90_s);
    m.drain_iterations = drain_of(p);
    m.runs = {{p.dir, 0, m.predicted_s}};
    m.split = attribute(p.ops, p.iterations, p.iteration_time_s);
    m.ops = match_ops(p.ops, p.iterations, measured.ops, measured.iterations);
    m.difference_by_kind_s = difference_by_kind(m.ops);
    c.models.push_back(std::move(m));
  }
  return c;
}

std::string comparison_csv_header() {
  return "scenario,strategy,world_size,network_model,measured_s,measured_min_s,measured_max_s,"
         "predicted_s,error_pct,compute_measured_s,compute_predicted_s,communication_measured_s,"
         "communication_predicted_s,waiting_measured_s,waiting_predicted_s,other_measured_s,"
         "other_predicted_s,measured_mean_s,predicted_mean_s,mean_error_pct,p10_measured_s,"
         "p10_predicted_s,p90_measured_s,p90_predicted_s,p90_error_pct,measured_runs,"
         "measured_run_spread_pct,predicted_runs,predicted_run_spread_pct";
}

std::string comparison_csv_rows(const Comparison& c, const std::string& prefix_fields) {
  std::string out;
  const Split& ms = c.measured_split;
  for (const auto& m : c.models)
    out += prefix_fields +
           fmt::format("{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.3f},{:.6f},{:.6f},{:.6f},{:.6f},"
                       "{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.3f},{:.6f},{:.6f},{:.6f},"
                       "{:.6f},{:.3f},{},{:.3f},{},{:.3f}\n",
                       c.scenario, c.strategy, c.world_size, m.network_model, c.measured_s,
                       c.measured_min_s, c.measured_max_s, m.predicted_s, m.error_pct, ms.compute_s,
                       m.split.compute_s, ms.communication_s, m.split.communication_s, ms.waiting_s,
                       m.split.waiting_s, ms.other_s, m.split.other_s, c.measured_mean_s,
                       m.predicted_mean_s, m.mean_error_pct, c.measured_p10_s, m.predicted_p10_s,
                       c.measured_p90_s, m.predicted_p90_s, m.p90_error_pct, c.measured_runs.size(),
                       c.measured_run_spread_pct, m.runs.size(), m.run_spread_pct);
  return out;
}

namespace {

void write_ops_csv(const ModelComparison& m, const std::string& path) {
  std::ofstream out(path);
  out << "rank,op,type,label,nonblocking,matched,predicted_s,measured_s,difference_s,"
         "predicted_waiting_s,measured_waiting_s\n";
  for (const auto& d : m.ops) {
    std::string label = d.label;
    std::replace(label.begin(), label.end(), ',', ';');
    out << fmt::format("{},{},{},{},{},{},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f}\n", d.rank, d.op,
                       results::to_string(d.type), label, d.nonblocking ? 1 : 0, d.matched ? 1 : 0,
                       d.predicted_s, d.measured_s, d.predicted_s - d.measured_s,
                       d.predicted_waiting_s, d.measured_waiting_s);
  }
}

}  // namespace

void write_comparison(const Comparison& c, const std::string& dir) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-comparison";
  j["version"] = 1;
  j["scenario"] = c.scenario;
  j["strategy"] = c.strategy;
  j["world_size"] = c.world_size;
  j["measured"] = {{"dir", c.measured_dir},          {"executor", c.measured_executor.empty() ? "emu" : c.measured_executor},
                   {"iteration_time_s", c.measured_s},
                   {"min_s", c.measured_min_s},      {"max_s", c.measured_max_s},
                   {"p10_s", c.measured_p10_s},      {"p90_s", c.measured_p90_s},
                   {"mean_s", c.measured_mean_s},
                   {"iterations", c.measured_iterations},
                   {"iteration_period", c.iteration_period},
                   {"drain_iterations", c.measured_drain_iterations},
                   {"split", split_json(c.measured_split)},
                   {"runs", runs_json(c.measured_runs, false)},
                   {"run_spread_pct", c.measured_run_spread_pct}};
  auto& models = j["predicted"] = nlohmann::ordered_json::array();
  for (const auto& m : c.models) {
    nlohmann::ordered_json diff = nlohmann::ordered_json::object();
    for (const auto& [k, v] : m.difference_by_kind_s) diff[k] = v;
    int matched = 0;
    for (const auto& d : m.ops) matched += d.matched ? 1 : 0;
    models.push_back({{"network_model", m.network_model}, {"dir", m.dir},
                      {"iteration_time_s", m.predicted_s}, {"error_pct", m.error_pct},
                      {"mean_iteration_time_s", m.predicted_mean_s}, {"mean_error_pct", m.mean_error_pct},
                      {"p10_s", m.predicted_p10_s}, {"p90_s", m.predicted_p90_s},
                      {"p90_error_pct", m.p90_error_pct},
                      {"drain_iterations", m.drain_iterations},
                      {"split", split_json(m.split)},
                      {"blocking_op_difference_by_kind_s", diff},
                      {"ops", m.ops.size()}, {"ops_matched", matched},
                      {"ops_file", fmt::format("ops_{}.csv", m.network_model)},
                      {"variance_seed", m.seed},
                      {"runs", runs_json(m.runs, true)},
                      {"run_spread_pct", m.run_spread_pct}});
    write_ops_csv(m, fmt::format("{}/ops_{}.csv", dir, m.network_model));
  }
  std::ofstream(dir + "/comparison.json") << j.dump(2) << "\n";
  std::ofstream(dir + "/comparison.csv") << comparison_csv_header() << "\n" << comparison_csv_rows(c);
}

std::string comparison_table(const Comparison& c) {
  std::string out = fmt::format(
      "{} ({}, {} ranks): measured ({}) {:.4f} s per iteration (median of {}{}, range {:.4f} .. {:.4f})\n",
      c.scenario, c.strategy, c.world_size, c.measured_executor.empty() ? "emu" : c.measured_executor, c.measured_s,
      c.measured_iterations,
      c.iteration_period > 1 ? fmt::format(" means of {} consecutive iterations, one cycle of the Program", c.iteration_period) : "",
      c.measured_min_s, c.measured_max_s);
  out += fmt::format("  {:<10} {:>11} {:>8}   {:>23} {:>23} {:>23} {:>23}\n", "model", "predicted",
                     "error", "compute pred/meas", "communication p/m", "waiting p/m", "other p/m");
  const Split& ms = c.measured_split;
  for (const auto& m : c.models)
    out += fmt::format("  {:<10} {:>9.4f} s {:>+7.1f}%   {:>10.4f} / {:<10.4f} {:>10.4f} / {:<10.4f} "
                       "{:>10.4f} / {:<10.4f} {:>10.4f} / {:<10.4f}\n",
                       m.network_model, m.predicted_s, m.error_pct, m.split.compute_s, ms.compute_s,
                       m.split.communication_s, ms.communication_s, m.split.waiting_s, ms.waiting_s,
                       m.split.other_s, ms.other_s);
  out += fmt::format("  mean of the same intervals: measured {:.4f} s", c.measured_mean_s);
  for (const auto& m : c.models)
    out += fmt::format(", {} {:.4f} s ({:+.1f}%)", m.network_model, m.predicted_mean_s, m.mean_error_pct);
  out += "\n";
  out += fmt::format("  spread p10 .. p90: measured {:.4f} .. {:.4f} s", c.measured_p10_s, c.measured_p90_s);
  for (const auto& m : c.models)
    out += fmt::format(", {} {:.4f} .. {:.4f} s (p90 {:+.1f}%)", m.network_model, m.predicted_p10_s,
                       m.predicted_p90_s, m.p90_error_pct);
  out += "\n";
  if (c.measured_drain_iterations > 0 ||
      std::any_of(c.models.begin(), c.models.end(), [](const ModelComparison& m) { return m.drain_iterations > 0; })) {
    out += fmt::format("  drain left out (iterations begun after the first rank finished): measured {}",
                       c.measured_drain_iterations);
    for (const auto& m : c.models) out += fmt::format(", {} {}", m.network_model, m.drain_iterations);
    out += "\n";
  }
  if (c.measured_runs.size() > 1 ||
      std::any_of(c.models.begin(), c.models.end(), [](const ModelComparison& m) { return m.runs.size() > 1; })) {
    out += fmt::format("  runs (each side judged by its median run): measured {} (spread {:.1f}%)",
                       c.measured_runs.size(), c.measured_run_spread_pct);
    for (const auto& m : c.models)
      out += fmt::format(", {} {} seeds (spread {:.1f}%, median run: seed {})", m.network_model,
                         m.runs.size(), m.run_spread_pct, m.seed);
    out += "\n    measured medians:";
    for (const auto& r : c.measured_runs) out += fmt::format(" {:.4f}", r.median_s);
    out += " s\n";
  }
  out += "  (seconds per rank and iteration; waiting = blocked until a peer arrived; other = gaps "
         "and time after the rank's last op)\n";
  return out;
}

}  // namespace geotrain::compare
