#pragma once
// DIR/sweep.csv: one row per point x strategy, ordered by point index then strategy (spec
// order), never by completion order, so the same spec gives the same bytes. Columns:
//   point, <each varied key>, strategy, status (ok|skipped), iteration_time_s, tokens_per_s,
//   samples_per_s, bytes_per_step, statistical_efficiency, time_per_token_s, winner,
//   margin_to_runner_up, relative_to_winner, criterion, reason
// time_per_token_s = 1 / (tokens_per_s x statistical_efficiency); margin_to_runner_up = winner's
// effective throughput / runner-up's (winner rows only); relative_to_winner = this / winner's.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/sweep/expansion.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace geotrain::sweep {

struct TableCounts {
  std::size_t points = 0;
  std::size_t runs = 0;
  std::size_t ok = 0;
  std::size_t skipped = 0;
};

// Reads every run's result from points_dir and writes the CSV atomically. Throws Error naming
// the first missing run when a result is absent (an unfinished sweep or an incomplete merge).
TableCounts write_sweep_csv(const SweepSpec& spec, const std::vector<PointRun>& runs,
                            const std::string& points_dir, const std::string& csv_path);

}  // namespace geotrain::sweep
