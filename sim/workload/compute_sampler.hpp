#pragma once
// simulation.compute_variance: sampled. Each execution of a Compute op takes a duration drawn
// from its measured profile entry: u from a counter-based uniform draw keyed by (scenario seed,
// rank, iteration, op index), the duration the interpolated quantile of the entry's sorted
// samples at u (sim/common/quantile.hpp). Counter-based because SimGrid runs actors in an order
// that depends on timing: a draw that depended on how many draws came before would change with
// every model detail, while this one makes the same scenario and seed give the same bytes.
//
// simulation.compute_variance: steps draws whole measured steps instead: iteration i takes every
// rank's Compute op times from one measured step (drawn per iteration without replacement, the
// same for all ranks),
// each (rank, op index) getting what that rank's op took in that step (the profile's
// sample_sites). Ranks sharing a machine's cores are not independent: when one is descheduled
// another runs, so within a step their times are negatively coupled, and independent draws put
// too much spread between the ranks of a synchronous step (docs/simulator-models.md). An op
// the drawn step has no sample for (another world size, an op inactive then) falls back to the
// independent draw.
//
// simulation.compute_variance: machine draws the machine's state once per run and every op
// around it (machine_speed.hpp): run_unit() is the run's draw, keyed by the seed alone.
#include <cstddef>
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
  // compute_variance: steps. Which of `count` measured steps (0 .. count-1, in step order)
  // iteration `iteration` takes its compute times from, the same for every rank and op. The
  // iterations from `first_step` on go through the measured steps in a seeded random order, a
  // new order every `count` iterations (iterations before it, the warm-up, take the order
  // before): drawn without replacement, so any `count` consecutive iterations from first_step
  // use each measured step once, and a prediction as long as the measured run has the measured
  // mix of steps rather than a draw with repeats.
  std::size_t measured_step(std::int64_t iteration, std::int64_t first_step,
                            std::size_t count) const;
  // The interpolated quantile of `sorted_samples` (ascending) at the site's draw;
  // `fallback_s` when there are no samples.
  double seconds(const std::vector<double>& sorted_samples, double fallback_s,
                 const ComputeSite& site) const;
  // compute_variance: machine. The run's uniform draw (the same for every site of one seed).
  double run_unit() const;
  // The interpolated quantile of `sorted_samples` at machine_unit(run_unit(), unit(site), share);
  // `fallback_s` when there are no samples.
  double machine_seconds(const std::vector<double>& sorted_samples, double fallback_s,
                         const ComputeSite& site, double share) const;

 private:
  std::uint64_t stream_seed_;  // the scenario seed mixed with this stream's salt
  std::uint64_t step_seed_;    // ... with the step stream's salt
  std::uint64_t run_seed_;     // ... with the machine state's salt
  double run_score_;           // normal_score(run_unit()): machine_seconds' hot path needs it per op
};

}  // namespace geotrain
