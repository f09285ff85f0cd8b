#pragma once
// Predicted vs measured for one scenario: the emulated run (measured) against one simulation per
// network model (predicted), matched op by op. Files: comparison.json, comparison.csv (a row per
// network model) and ops_<model>.csv (a row per Program op), in the conventions of plots/.
#include <map>
#include <string>
#include <vector>

#include "sim/compare/attribution.hpp"
#include "sim/compare/op_table.hpp"

namespace geotrain::compare {

// One run directory's figures: iterations compared, their times and the ops.
struct RunFiles {
  std::string dir;
  std::string scenario;
  std::string strategy;
  int world_size = 0;
  double iteration_time_s = 0;          // the run's own figure (measured: median after warm-up)
  std::vector<double> iteration_times_s;  // per compared iteration (measured only)
  std::vector<int> iterations;          // iteration numbers compared
  std::vector<OpRow> ops;
  std::string collectives;  // measured: "p2p" or "gloo" (how the worker ran collectives); empty if unknown
};

// geotrain emulate's run directory: summary.json (iteration_times_s, warmup_iterations), ops.csv.
RunFiles read_measured_run(const std::string& dir);
// geotrain simulate's run directory: summary.json (iteration_time_s, iterations), ops.csv.
RunFiles read_predicted_run(const std::string& dir);

struct ModelComparison {
  std::string network_model;
  std::string dir;
  double predicted_s = 0;
  double error_pct = 0;
  Split split;
  std::map<std::string, double> difference_by_kind_s;  // per iteration, summed over ranks
  std::vector<OpDiff> ops;
};

struct Comparison {
  std::string scenario;
  std::string strategy;
  int world_size = 0;
  std::string measured_dir;
  double measured_s = 0;  // median
  double measured_min_s = 0, measured_max_s = 0, measured_p10_s = 0, measured_p90_s = 0;
  int measured_iterations = 0;
  Split measured_split;
  std::vector<ModelComparison> models;
};

// `model_names[i]` names predicted[i] ("flow", "tcp").
Comparison compare_runs(const RunFiles& measured, const std::vector<RunFiles>& predicted,
                        const std::vector<std::string>& model_names);

void write_comparison(const Comparison& c, const std::string& dir);

// The one-line-per-model table `geotrain compare` prints.
std::string comparison_table(const Comparison& c);

// Rows of comparison.csv (header first), also the rows of the validation summary.
std::string comparison_csv_header();
std::string comparison_csv_rows(const Comparison& c, const std::string& prefix_fields = "");

}  // namespace geotrain::compare
