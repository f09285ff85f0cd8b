#include "sim/compare/run_ensemble.hpp"

#include <algorithm>
#include <numeric>

#include "sim/common/error.hpp"
#include "sim/compare/error_stats.hpp"

namespace geotrain::compare {

namespace {

double run_median(const RunFiles& r) { return median(r.iteration_times_s); }

std::vector<EnsembleRun> members(const RunEnsemble& e) {
  std::vector<EnsembleRun> out;
  for (std::size_t i = 0; i < e.runs.size(); ++i)
    out.push_back({e.runs[i].dir, i < e.seeds.size() ? e.seeds[i] : 0, run_median(e.runs[i])});
  return out;
}

}  // namespace

std::size_t median_run_index(const std::vector<RunFiles>& runs) {
  if (runs.empty()) throw Error("median_run_index: no runs");
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable, so equal medians keep the order the runs were made in (deterministic output).
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return run_median(runs[a]) < run_median(runs[b]);
  });
  return order[(order.size() - 1) / 2];
}

double run_spread_pct(const std::vector<RunFiles>& runs) {
  if (runs.size() < 2) return 0;
  std::vector<double> medians;
  for (const auto& r : runs) medians.push_back(run_median(r));
  const double middle = run_median(runs[median_run_index(runs)]);
  const auto [lo, hi] = std::minmax_element(medians.begin(), medians.end());
  return middle > 0 ? 100.0 * (*hi - *lo) / middle : 0;
}

Comparison compare_ensembles(const RunEnsemble& measured, const std::vector<RunEnsemble>& predicted,
                             const std::vector<std::string>& model_names) {
  std::vector<std::size_t> judged_index;
  std::vector<RunFiles> judged;
  for (const auto& p : predicted) {
    judged_index.push_back(median_run_index(p.runs));
    judged.push_back(p.runs.at(judged_index.back()));
  }
  Comparison c = compare_runs(measured.runs.at(median_run_index(measured.runs)), judged, model_names);
  c.measured_runs = members(measured);
  c.measured_run_spread_pct = run_spread_pct(measured.runs);
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    c.models[i].runs = members(predicted[i]);
    c.models[i].run_spread_pct = run_spread_pct(predicted[i].runs);
    c.models[i].seed = c.models[i].runs[judged_index[i]].seed;
  }
  return c;
}

}  // namespace geotrain::compare
