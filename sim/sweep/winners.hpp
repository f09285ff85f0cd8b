#pragma once
// Picks the winning strategy at each point. Both criteria compare an effective throughput,
// tokens/s x statistical efficiency (the efficiency is 1 for `throughput`): the highest wins,
// which for `time_per_work` is the same as the lowest seconds per token / efficiency.
// Ties go to the strategy listed first in the spec.
#include <optional>
#include <vector>

#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace geotrain::sweep {

struct Standing {
  bool winner = false;
  std::optional<double> margin_to_runner_up;  // winner only: winner / runner-up (>= 1), if any ran
  std::optional<double> relative_to_winner;   // this / winner (<= 1), for every valid run
};

// results: one point's runs in spec order of strategies (skipped ones have ok == false).
std::vector<Standing> rank_point(const SweepSpec& spec,
                                 const std::vector<const PointResult*>& results);

// tokens/s x statistical efficiency of the run's strategy.
double effective_throughput(const SweepSpec& spec, const PointResult& r);

}  // namespace geotrain::sweep
