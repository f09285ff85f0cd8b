#pragma once
// Predicted vs measured for one scenario: the emulated run (measured) against one simulation per
// network model (predicted), matched op by op. Files: comparison.json, comparison.csv (a row per
// network model) and ops_<model>.csv (a row per Program op), in the conventions of plots/.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/compare/attribution.hpp"
#include "sim/results/ops_csv_reader.hpp"

namespace geotrain::compare {

// One run directory's figures: iterations compared, their times and the ops.
struct RunFiles {
  std::string dir;
  std::string scenario;
  std::string strategy;
  int world_size = 0;
  // Measured: the run's own figure from summary.json; predicted: the median of the compared
  // iterations' completion intervals (the statistic the measured side is compared with).
  double iteration_time_s = 0;
  std::vector<double> iteration_times_s;  // completion interval of each compared iteration
  std::vector<int> iterations;            // iteration numbers compared (from `warmup` on)
  int warmup = 0;
  // Iterations that started before an asynchronous run's drain (iteration_intervals.hpp); the
  // later ones are not compared.
  int steady_iterations = 0;
  int total_iterations = 0;
  int iteration_period = 1;  // > 1: iteration_times_s are means over windows of that many
  std::vector<results::OpRecord> ops;
  std::string collectives;  // measured: "p2p", "gloo" or "nccl" (how the worker ran collectives); empty if unknown
  std::string device;       // measured: "cpu" or "cuda"; empty if unknown (runs before GPU support: cpu)
  // measured: how its links were made ("shaped (network namespaces)", "unshaped (loopback)": emulate
  // --unshaped, whose links were not shaped); empty if unknown
  std::string network;
  std::string executor;     // measured: "emu" (geotrain emulate) or "real" (geotrain real run)
  int host_cores = 0;       // measured: CPUs all ranks shared (emulate); 0: unknown or one machine each
  int torch_threads = 0;    // measured: torch threads per worker; 0: unknown
};

// Both sides are compared on the same statistic: the median over the steady iterations after
// the measured run's warm-up of the completion intervals (sim/common/iteration_intervals.hpp),
// computed from each run's ops.csv.
// A measured run directory, of geotrain emulate or geotrain real run (same files; summary.json's
// format says which): summary.json (iterations, warmup_iterations), ops.csv.
RunFiles read_measured_run(const std::string& dir);
// geotrain simulate's run directory: summary.json (iterations), ops.csv; the first `warmup`
// iterations are left out as on the measured side.
RunFiles read_predicted_run(const std::string& dir, int warmup = 0);

// One run of an ensemble (run_ensemble.hpp): where it is, its variance seed (predictions; 0 for
// measured runs) and its median compared interval.
struct EnsembleRun {
  std::string dir;
  std::uint64_t seed = 0;
  double median_s = 0;
};

struct ModelComparison {
  std::string network_model;
  std::string dir;
  double predicted_s = 0;
  double error_pct = 0;
  // The mean of the same completion intervals (the run's throughput): reported beside the median,
  // which is the judged figure, because the median of a sample that mixes two kinds of iteration
  // (AD-PSGD rounds with and without a long-haul pair) jumps between them.
  double predicted_mean_s = 0;
  double mean_error_pct = 0;
  // The spread of the same intervals (interpolated p10 / p90): how far the prediction's
  // iterations scatter (under simulation.compute_variance: sampled) against the measured ones.
  double predicted_p10_s = 0, predicted_p90_s = 0;
  double p90_error_pct = 0;
  int drain_iterations = 0;  // the prediction's drain, left out like the measured one
  // The predictions of the ensemble (one when compare ran a single seed); the figures above are
  // the median run's, whose variance seed is `seed` (0: the scenario's, not set).
  std::vector<EnsembleRun> runs;
  double run_spread_pct = 0;
  std::uint64_t seed = 0;
  Split split;
  std::map<std::string, double> difference_by_kind_s;  // per iteration, summed over ranks
  std::vector<OpDiff> ops;
};

struct Comparison {
  std::string scenario;
  std::string strategy;
  int world_size = 0;
  std::string measured_dir;
  std::string measured_executor;  // "emu" or "real": which executor measured
  double measured_s = 0;  // median
  double measured_mean_s = 0;
  double measured_min_s = 0, measured_max_s = 0, measured_p10_s = 0, measured_p90_s = 0;
  int measured_iterations = 0;   // compared: after the warm-up, before the drain
  int iteration_period = 1;      // > 1: each compared time is the mean of one cycle's iterations
  int measured_drain_iterations = 0;  // the asynchronous drain left out
  Split measured_split;
  // The measured runs of the ensemble (one unless compare --runs); the figures above are the
  // median run's (measured_dir).
  std::vector<EnsembleRun> measured_runs;
  double measured_run_spread_pct = 0;
  std::vector<ModelComparison> models;
};

// `model_names[i]` names predicted[i] ("flow", "tcp").
Comparison compare_runs(const RunFiles& measured, const std::vector<RunFiles>& predicted,
                        const std::vector<std::string>& model_names);

void write_comparison(const Comparison& c, const std::string& dir);

// The one-line-per-model table `geotrain compare` prints.
std::string comparison_table(const Comparison& c);

// Rows of comparison.csv (header first), also the rows of the validation summary. New columns
// go at the end, so readers by column name or position of older files keep working.
std::string comparison_csv_header();
std::string comparison_csv_rows(const Comparison& c, const std::string& prefix_fields = "");

}  // namespace geotrain::compare
