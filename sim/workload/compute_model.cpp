#include "sim/workload/compute_model.hpp"

// Measured compute profile (simulation.compute_profile): format in compute_profile.hpp.
//
// Lookup for an op: (1) an entry of the same kind, layer range and sequences -> its median;
// (2) else the entry of the same kind nearest in flop (|log ratio|), scaled by the flop ratio;
// (3) else the device model.
// With simulation.host_cores the profile's CPU times replace its wall times (use_cpu_times).
// compute_variance: sampled replaces the entry's median by a draw from its samples
// (compute_sampler.hpp); the flop ratio and the slowdown apply to the draw alike.
// compute_variance: steps takes an exact-match op's time from one measured step per iteration
// (the profile's sample_sites); other ops, and profiles without sites, draw as under sampled.
// compute_variance: machine draws around one state of the machine per run, with the share the
// profile's own samples measure (machine_speed.hpp).
//
// Device model: forward/backward take flops / (peak for the model dtype x efficiency).
// The optimizer and `other` ops (gradient averaging) are element-wise over fp32 buffers, hence
// memory-bound: they take
// max(memory_bytes / memory bandwidth, flops / (fp32 peak x efficiency)); the memory bandwidth
// is the profile's (the device library's data-sheet figure, or devices.profiles.<p>.
// memory_bandwidth); a profile without one gets 0.06 byte per fp32 flop, the V100's ratio.
// Every time is multiplied by the device's slowdown.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/common/small_math.hpp"
#include "sim/workload/compute_profile.hpp"
#include "sim/workload/machine_speed.hpp"

namespace geotrain {

namespace {

constexpr double kBytesPerFp32Flop = 0.06;  // about the V100 SXM2: 900 GB/s over 15.7 TFLOPS

}  // namespace

// The profile entry an op is timed by: its own (exact), or the nearest of its kind in flop.
struct ProfileMatch {
  std::size_t entry = 0;
  bool exact = true;
};

struct ComputeModel::Impl {
  Scenario scenario;  // a copy: the model must not dangle when the caller's scenario goes
  std::vector<ProfileEntry> entries;
  std::vector<std::vector<double>> sorted_samples;  // by entry, ascending (sampled variance only)
  std::optional<ComputeSampler> sampler;            // set unless compute_variance: median
  // compute_variance: steps: the measured steps (ascending) and, per (rank, step, op index),
  // the entry and the time of that execution.
  std::vector<int> measured_steps;
  std::vector<int> warmup_steps;  // the run's warm-up steps with samples (ascending)
  std::map<std::tuple<int, int, int>, std::pair<std::size_t, double>> measured_at;
  bool planned = false;  // the profile has measured_at (geotrain profile): exact entries only
  double machine_share = 0;  // compute_variance: machine (machine_speed.hpp)

  // The time `site`'s op took in the measured step drawn for its iteration, if recorded there.
  std::optional<double> measured_step_time(const ProfileMatch& m, const ComputeSite& site) const {
    if (measured_steps.empty() || !m.exact) return std::nullopt;
    // An iteration before the first measured step replays the run's own warm-up step, if kept
    // (compute_profile.hpp: the first iteration is not a typical one).
    const bool warmup = site.iteration < measured_steps.front() &&
                        std::binary_search(warmup_steps.begin(), warmup_steps.end(), site.iteration);
    const int step = warmup ? static_cast<int>(site.iteration)
                            : measured_steps[sampler->measured_step(site.iteration, measured_steps.front(),
                                                                    measured_steps.size())];
    const auto it = measured_at.find({site.rank, step, site.op_index});
    if (it == measured_at.end() || it->second.first != m.entry) return std::nullopt;
    return it->second.second;
  }

  std::optional<ProfileMatch> match(const ComputeOp& op) const {
    std::optional<ProfileMatch> nearest;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const ProfileEntry& e = entries[i];
      if (e.kind != op.kind) continue;
      if (e.layer_begin == op.layer_begin && e.layer_end == op.layer_end &&
          same(e.sequences, op.sequences) && (op.kind != ComputeKind::other || same(e.flops, op.flops)))
        return ProfileMatch{i, true};
      if (e.flops <= 0 || op.flops <= 0) continue;
      const double distance = std::abs(std::log(e.flops / op.flops));
      if (distance < best) best = distance, nearest = ProfileMatch{i, false};
    }
    return nearest;
  }

  // A time of the matched entry, scaled to the op by the flop ratio when not its own entry
  // (written as before sampling existed, so median runs keep their bytes).
  double scaled(const ComputeOp& op, const ProfileMatch& m, double entry_s) const {
    return m.exact ? entry_s : entry_s * op.flops / entries[m.entry].flops;
  }

  double modelled(const ComputeOp& op, const DeviceProfile& p) const {
    const double rate = p.peak_flops(scenario.model.dtype) * p.efficiency;
    if (op.kind == ComputeKind::forward || op.kind == ComputeKind::backward) return op.flops / rate;
    const double bandwidth =
        p.memory_bandwidth_Bps > 0 ? p.memory_bandwidth_Bps : p.peak_fp32_flops * kBytesPerFp32Flop;
    return std::max(op.memory_bytes / bandwidth, op.flops / (p.peak_fp32_flops * p.efficiency));
  }
};

ComputeModel::ComputeModel(const Scenario& scenario) : impl_(std::make_unique<Impl>()) {
  impl_->scenario = scenario;
  const std::string& file = scenario.simulation.compute_profile;
  if (!file.empty()) {
    // Checked before the entries: another model's layer ranges would fail as bad fields.
    if (const auto at = read_profile_measured_at(file)) {
      if (const auto diff = measured_at_mismatch(*at, scenario); !diff.empty())
        throw InputError(fmt::format("simulation.compute_profile: {} was measured for {} (expected a profile "
                                     "of this scenario's model: geotrain profile {})",
                                     file, diff, scenario.path.empty() ? "SCENARIO" : scenario.path));
      impl_->planned = true;
    }
    impl_->entries = read_compute_profile(file, scenario);
  }
  // CPU times first: a sampled run then draws from the CPU samples.
  if (scenario.simulation.host_cores > 0) use_cpu_times(scenario.simulation.compute_profile);
  if (scenario.simulation.compute_variance != ComputeVariance::median) {
    const auto& sim = scenario.simulation;
    impl_->sampler.emplace(sim.variance_seed != 0 ? sim.variance_seed : scenario.seed);
    for (const auto& e : impl_->entries) {
      auto sorted = e.samples_s;
      std::sort(sorted.begin(), sorted.end());
      impl_->sorted_samples.push_back(std::move(sorted));
    }
  }
  // From the samples in the order they were taken (CPU ones under host_cores, as drawn).
  if (scenario.simulation.compute_variance == ComputeVariance::machine)
    impl_->machine_share = geotrain::machine_share(impl_->entries);
  if (scenario.simulation.compute_variance == ComputeVariance::steps) {
    for (std::size_t i = 0; i < impl_->entries.size(); ++i) {
      const ProfileEntry& e = impl_->entries[i];
      for (std::size_t k = 0; k < e.sample_sites.size() && k < e.samples_s.size(); ++k) {
        const SampleSite& s = e.sample_sites[k];
        impl_->measured_at[{s.rank, s.step, s.op}] = {i, e.samples_s[k]};
        impl_->measured_steps.push_back(s.step);
      }
      for (std::size_t k = 0; k < e.warmup_sample_sites.size() && k < e.warmup_samples_s.size(); ++k) {
        const SampleSite& s = e.warmup_sample_sites[k];
        impl_->measured_at[{s.rank, s.step, s.op}] = {i, e.warmup_samples_s[k]};
        impl_->warmup_steps.push_back(s.step);
      }
    }
    for (auto* steps : {&impl_->measured_steps, &impl_->warmup_steps}) {
      std::sort(steps->begin(), steps->end());
      steps->erase(std::unique(steps->begin(), steps->end()), steps->end());
    }
  }
}

// Host cores: an op's work is the CPU time its thread used, which does not grow when ranks
// share cores (the wall time does; the engine recreates that from the shared host).
void ComputeModel::use_cpu_times(const std::string& file) {
  for (std::size_t i = 0; i < impl_->entries.size(); ++i) {
    ProfileEntry& e = impl_->entries[i];
    if (!e.has_cpu_time())
      throw InputError(fmt::format("{}: ops[{}] has no cpu_median_s (simulation.host_cores needs the "
                                   "CPU times geotrain emulate records; re-run the emulation)",
                                   file, i));
    e.median_s = e.cpu_median_s;
    e.samples_s = e.cpu_samples_s;
    // Warm-up steps replay their CPU times too, or none (a wall time would count the sharing twice).
    e.warmup_samples_s = e.warmup_cpu_samples_s;
    if (e.warmup_samples_s.empty()) e.warmup_sample_sites.clear();
  }
}

ComputeModel::~ComputeModel() = default;
ComputeModel::ComputeModel(ComputeModel&&) noexcept = default;
ComputeModel& ComputeModel::operator=(ComputeModel&&) noexcept = default;

void ComputeModel::require_entries(const Program& program) const {
  if (!impl_->planned) return;
  const auto describe = [](ComputeKind kind, int begin, int end, double sequences) {
    std::string s = fmt::format("{} of layers [{}, {})", to_string(kind), begin, end);
    if (sequences > 0) s += fmt::format(" with {:g} sequences", sequences);
    return s;
  };
  std::vector<std::string> missing;
  for (const auto& ops : program.ranks)
    for (const auto& op : ops) {
      const auto* c = op.as<ComputeOp>();
      if (!c) continue;
      const auto m = impl_->match(*c);
      if (m && m->exact) continue;
      const auto what = describe(c->kind, c->layer_begin, c->layer_end, c->sequences);
      if (std::find(missing.begin(), missing.end(), what) == missing.end()) missing.push_back(what);
    }
  if (missing.empty()) return;
  std::string has;
  for (const auto& e : impl_->entries)
    has += (has.empty() ? "" : ", ") + describe(e.kind, e.layer_begin, e.layer_end, e.sequences);
  throw InputError(fmt::format(
      "simulation.compute_profile: {} has no entry for {}{} (it has: {}; expected a profile of this "
      "scenario's stages and micro-batches: geotrain profile {})",
      impl_->scenario.simulation.compute_profile, missing.front(),
      missing.size() > 1 ? fmt::format(" and {} more op(s)", missing.size() - 1) : "", has,
      impl_->scenario.path.empty() ? "SCENARIO" : impl_->scenario.path));
}

double ComputeModel::machine_share() const { return impl_->machine_share; }

double ComputeModel::seconds(const ComputeOp& op, int device) const {
  const Scenario& sc = impl_->scenario;
  const double slowdown = sc.devices.at(static_cast<std::size_t>(device)).slowdown;
  if (auto m = impl_->match(op))
    return impl_->scaled(op, *m, impl_->entries[m->entry].median_s) * slowdown;
  return impl_->modelled(op, sc.profile_of(device)) * slowdown;
}

double ComputeModel::seconds(const ComputeOp& op, int device, const ComputeSite& site) const {
  if (!impl_->sampler) return seconds(op, device);
  const auto m = impl_->match(op);
  if (!m) return seconds(op, device);  // the device model has no spread to draw from
  const double slowdown = impl_->scenario.devices.at(static_cast<std::size_t>(device)).slowdown;
  if (const auto t = impl_->measured_step_time(*m, site)) return *t * slowdown;
  const auto& sorted = impl_->sorted_samples[m->entry];
  const double typical = impl_->entries[m->entry].median_s;
  const double drawn = impl_->scenario.simulation.compute_variance == ComputeVariance::machine
                           ? impl_->sampler->machine_seconds(sorted, typical, site, impl_->machine_share)
                           : impl_->sampler->seconds(sorted, typical, site);
  return impl_->scaled(op, *m, drawn) * slowdown;
}

}  // namespace geotrain
