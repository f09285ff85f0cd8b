#include "sim/workload/machine_speed.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <boost/math/distributions/normal.hpp>

namespace geotrain {

namespace {

const boost::math::normal kStandardNormal;

// Uniform draws of exactly 0 (and the largest below 1) would be infinite scores.
double clamp_unit(double u) { return std::clamp(u, 1e-12, 1 - 1e-12); }

// Normal scores by rank (ties share their mean rank), in the samples' own order.
std::vector<double> normal_scores(const std::vector<double>& v) {
  const std::size_t n = v.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> z(n);
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k <= j; ++k) z[order[k]] = normal_score((mean_rank + 0.5) / static_cast<double>(n));
    i = j + 1;
  }
  return z;
}

}  // namespace

double normal_score(double unit) { return boost::math::quantile(kStandardNormal, clamp_unit(unit)); }

double lag1_score_correlation(const std::vector<double>& samples_in_order) {
  if (samples_in_order.size() < kMachineShareMinSamples) return 0;
  const auto z = normal_scores(samples_in_order);
  const double mean = std::accumulate(z.begin(), z.end(), 0.0) / static_cast<double>(z.size());
  double var = 0, cov = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    var += (z[i] - mean) * (z[i] - mean);
    if (i + 1 < z.size()) cov += (z[i] - mean) * (z[i + 1] - mean);
  }
  return var > 0 ? cov / var : 0;
}

double machine_share(const std::vector<ProfileEntry>& entries) {
  double weighted = 0, pairs = 0;
  for (const auto& e : entries) {
    if (e.samples_s.size() < kMachineShareMinSamples) continue;
    const double n = static_cast<double>(e.samples_s.size() - 1);
    weighted += n * lag1_score_correlation(e.samples_s);
    pairs += n;
  }
  return pairs > 0 ? std::clamp(weighted / pairs, 0.0, 1.0) : 0;
}

double machine_unit(double run_unit, double site_unit, double share) {
  return machine_unit_given_run_score(normal_score(run_unit), site_unit, share);
}

double machine_unit_given_run_score(double run_score, double site_unit, double share) {
  const double s = std::clamp(share, 0.0, 1.0);
  if (s == 0) return site_unit;  // sampled, to the bit
  const double z = std::sqrt(s) * run_score + std::sqrt(1 - s) * normal_score(site_unit);
  return boost::math::cdf(kStandardNormal, z);
}

}  // namespace geotrain
