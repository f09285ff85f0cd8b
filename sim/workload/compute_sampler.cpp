#include "sim/workload/compute_sampler.hpp"

#include "sim/common/quantile.hpp"
#include "sim/program/dynamic_rules.hpp"

namespace geotrain {

namespace {
// Separates this stream from every other draw keyed by (rank, iteration, op index): the
// stragglers' draws use the same keys with their own seed, which may equal the scenario seed
// (both default to 1). Without the salt a straggler would sleep exactly when its compute time
// is drawn low. The value is arbitrary ("compvar" in ASCII) and must never change: it is part
// of what a seed means.
constexpr std::uint64_t kComputeVarianceSalt = 0x636f6d70766172ULL;
}  // namespace

ComputeSampler::ComputeSampler(std::uint64_t scenario_seed)
    : stream_seed_(mix_seed(scenario_seed, kComputeVarianceSalt)) {}

double ComputeSampler::unit(const ComputeSite& site) const {
  return unit_draw(stream_seed_, static_cast<std::uint64_t>(site.rank),
                   static_cast<std::uint64_t>(site.iteration),
                   static_cast<std::uint64_t>(site.op_index));
}

double ComputeSampler::seconds(const std::vector<double>& sorted_samples, double fallback_s,
                               const ComputeSite& site) const {
  if (sorted_samples.empty()) return fallback_s;
  return sorted_quantile(sorted_samples, unit(site));
}

}  // namespace geotrain
