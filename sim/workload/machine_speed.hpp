#pragma once
// simulation.compute_variance: machine. A machine whose speed wanders (a shared cloud VM: the
// same forward took 16 ms in one minute and 25 ms in the next on the 2-core VM of
// docs/validation.md) puts a whole run in one state of the machine: its ops are slow or fast
// together, not each on its own. Independent draws (sampled) average that out within a run and
// predict every run near the median; this model draws the machine's state once per simulated
// run and every op around it, so an ensemble of seeds spreads as runs on that machine do.
//
// An op's draw is u = Phi(sqrt(s) z_run + sqrt(1 - s) z_site), with z_run the run's standard
// normal draw, z_site the op execution's (the `sampled` draw of the same site), Phi the normal
// CDF and s the machine share: the part of an op time's variance (in normal scores) that stays
// the same from one op to the next. s = 0 is `sampled` exactly; s = 1 times every op of a run at
// one quantile of its samples.
//
// s is measured, not chosen: the lag-1 correlation of the normal scores of each profile entry's
// samples in the order they were taken (geotrain profile takes them one after the other, so
// neighbours are a second or less apart), pooled over entries by their sample counts and clipped
// to [0, 1]. A steady machine gives about 0, one whose speed changes by the minute close to 1.
#include <vector>

#include "sim/workload/compute_profile.hpp"

namespace geotrain {

// Entries with fewer samples than this say nothing about neighbours and are left out.
inline constexpr std::size_t kMachineShareMinSamples = 8;

// The lag-1 correlation of `samples_in_order`'s normal scores (rank r of n becomes
// Phi^-1((r + 0.5) / n), ties by their mean rank), unclipped; 0 for fewer than
// kMachineShareMinSamples samples or no spread.
double lag1_score_correlation(const std::vector<double>& samples_in_order);

// The machine share of a profile: lag1_score_correlation over its entries, weighted by their
// number of neighbour pairs, clipped to [0, 1]; 0 when no entry has enough samples.
double machine_share(const std::vector<ProfileEntry>& entries);

// The standard normal score Phi^-1(u) of a uniform draw u in [0, 1) (clamped away from 0 and 1,
// whose scores would be infinite).
double normal_score(double unit);

// The op's uniform draw under compute_variance: machine: Phi(sqrt(s) z_run + sqrt(1 - s) z_site)
// for the run's and the site's uniform draws (each in [0, 1); clamped away from 0 and 1).
double machine_unit(double run_unit, double site_unit, double share);
// The same with the run's draw given as its score z_run = normal_score(run_unit): a run's
// score is the same for every op, so a sampler computes it once (the bits are machine_unit's).
double machine_unit_given_run_score(double run_score, double site_unit, double share);

}  // namespace geotrain
