#include "sim/workload/compute_sampler.hpp"

#include <utility>

#include "sim/common/quantile.hpp"
#include "sim/program/dynamic_rules.hpp"
#include "sim/workload/machine_speed.hpp"

namespace geotrain {

namespace {
// Separates this stream from every other draw keyed by (rank, iteration, op index): the
// stragglers' draws use the same keys with their own seed, which may equal the scenario seed
// (both default to 1). Without the salt a straggler would sleep exactly when its compute time
// is drawn low. The value is arbitrary ("compvar" in ASCII) and must never change: it is part
// of what a seed means.
constexpr std::uint64_t kComputeVarianceSalt = 0x636f6d70766172ULL;
// The step stream's salt ("compstep"), fixed for the same reason.
constexpr std::uint64_t kComputeStepSalt = 0x636f6d7073746570ULL;
// The machine state's salt ("compmach"), fixed for the same reason.
constexpr std::uint64_t kComputeMachineSalt = 0x636f6d706d616368ULL;
}  // namespace

ComputeSampler::ComputeSampler(std::uint64_t scenario_seed)
    : stream_seed_(mix_seed(scenario_seed, kComputeVarianceSalt)),
      step_seed_(mix_seed(scenario_seed, kComputeStepSalt)),
      run_seed_(mix_seed(scenario_seed, kComputeMachineSalt)),
      run_score_(normal_score(run_unit())) {}

std::size_t ComputeSampler::measured_step(std::int64_t iteration, std::int64_t first_step,
                                          std::size_t count) const {
  if (count <= 1) return 0;
  const auto n = static_cast<std::int64_t>(count);
  const std::int64_t k = iteration - first_step;
  const std::int64_t cycle = k >= 0 ? k / n : -((-k + n - 1) / n);  // floor(k / n)
  const auto position = static_cast<std::size_t>(k - cycle * n);
  // Fisher-Yates over the cycle's own draws (keyed by cycle and slot, so cycles are independent).
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = i;
  for (std::size_t i = count - 1; i > 0; --i) {
    const auto j = static_cast<std::size_t>(
        mix_seed(step_seed_, static_cast<std::uint64_t>(cycle), static_cast<std::uint64_t>(i)) %
        static_cast<std::uint64_t>(i + 1));
    std::swap(order[i], order[j]);
  }
  return order[position];
}

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

double ComputeSampler::run_unit() const { return unit_draw(run_seed_, 0); }

double ComputeSampler::machine_seconds(const std::vector<double>& sorted_samples, double fallback_s,
                                       const ComputeSite& site, double share) const {
  if (sorted_samples.empty()) return fallback_s;
  return sorted_quantile(sorted_samples, machine_unit_given_run_score(run_score_, unit(site), share));
}

}  // namespace geotrain
