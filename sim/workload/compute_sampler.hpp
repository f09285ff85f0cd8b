#pragma once
// simulation.compute_variance: sampled. Each execution of a Compute op takes a duration drawn
// from its measured profile entry: u from a counter-based uniform draw keyed by (scenario seed,
// rank, iteration, op index), the duration the interpolated quantile of the entry's sorted
// samples at u (sim/common/quantile.hpp). Counter-based because SimGrid runs actors in an order
// that depends on timing: a draw that depended on how many draws came before would change with
// every model detail, while this one makes the same scenario and seed give the same bytes.
#include <cstdint>
#include <vector>

namespace geotrain {

// Where a Compute op runs: the key of its draw.
struct ComputeSite {
  int rank = 0;
  std::int64_t iteration = 0;
  int op_index = 0;
};

class ComputeSampler {
 public:
  explicit ComputeSampler(std::uint64_t scenario_seed);

  // The uniform draw in [0, 1) for the site (the same site always gets the same value).
  double unit(const ComputeSite& site) const;
  // The interpolated quantile of `sorted_samples` (ascending) at the site's draw;
  // `fallback_s` when there are no samples.
  double seconds(const std::vector<double>& sorted_samples, double fallback_s,
                 const ComputeSite& site) const;

 private:
  std::uint64_t stream_seed_;  // the scenario seed mixed with this stream's salt
};

}  // namespace geotrain
