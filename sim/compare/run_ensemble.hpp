#pragma once
// Several runs of one case on each side: measured runs of the same scenario, and predictions
// that differ only in the seed of their compute draws (simulation.variance_seed). Each side is
// judged by its median run, the run whose median completion interval is the median of the runs'
// (the lower middle of an even count), so every figure of the comparison (median, mean, p90,
// the split, the ops) comes from one real run and not from a mix.
//
// Why: an asynchronous run can settle into one of several cycles (SD-Pipe with a slow replica
// either keeps pace or falls behind and syncs at every step), and which one depends on small
// differences early in the run. One run of each side is then one draw from each; the median run
// is the typical one, and the spread of the runs says how much a single run would have told.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/compare/comparison.hpp"

namespace geotrain::compare {

// The runs of one side, in the order they were made; seeds[i] is runs[i]'s variance seed
// (predictions; measured runs have none: leave `seeds` empty, read as 0).
struct RunEnsemble {
  std::vector<RunFiles> runs;
  std::vector<std::uint64_t> seeds;
};

// Index of the median run: by each run's median compared interval, lower middle of an even count.
std::size_t median_run_index(const std::vector<RunFiles>& runs);

// (slowest - fastest) / median run, in percent, over the runs' median intervals; 0 for one run.
double run_spread_pct(const std::vector<RunFiles>& runs);

// compare_runs on the median run of each side, with every run's median recorded
// (Comparison::measured_runs, ModelComparison::runs). `predicted[i]` is model_names[i]'s.
Comparison compare_ensembles(const RunEnsemble& measured, const std::vector<RunEnsemble>& predicted,
                             const std::vector<std::string>& model_names);

}  // namespace geotrain::compare
