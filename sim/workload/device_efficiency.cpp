#include "sim/workload/device_efficiency.hpp"

#include <fmt/format.h>

#include "sim/common/did_you_mean.hpp"
#include "sim/common/error.hpp"
#include "sim/common/text_rules.hpp"
#include "sim/scenario/device_library.hpp"

namespace geotrain {

DeviceEfficiency measure_device_efficiency(const std::vector<ProfileEntry>& entries,
                                           const std::string& profile, const std::string& like,
                                           DType dtype) {
  const LibraryDevice* device = library_device(like);
  if (!device)
    throw InputError(fmt::format("--like {}: not in the device library (expected one of: {})", like,
                                 join_names(library_device_names())));
  DeviceEfficiency e;
  e.profile = profile;
  e.like = like;
  e.dtype = dtype_name(dtype);
  e.peak_flops = device->figures.peak_flops(dtype);
  double flops = 0, seconds = 0;
  for (const auto& entry : entries) {
    if (entry.kind != ComputeKind::forward && entry.kind != ComputeKind::backward) continue;
    if (entry.flops <= 0 || entry.median_s <= 0) continue;  // nothing to learn a rate from
    flops += entry.flops;
    seconds += entry.median_s;
    ++e.ops;
  }
  if (e.ops == 0)
    throw Error(fmt::format("device entry {}: the profile has no forward or backward op with flops and a "
                            "time above 0 to measure a rate from",
                            profile));
  e.achieved_flops = flops / seconds;
  e.efficiency = e.achieved_flops / e.peak_flops;
  return e;
}

std::optional<std::string> device_efficiency_problem(const DeviceEfficiency& e) {
  if (e.efficiency >= kMinDeviceEfficiency && e.efficiency <= kMaxDeviceEfficiency) return std::nullopt;
  const std::string did = fmt::format("this device did {:.3g} flop/s on the forward and backward ops, {:.3g} x the "
                                      "{} peak of {} ({:.3g} flop/s)",
                                      e.achieved_flops, e.efficiency, e.dtype, e.like, e.peak_flops);
  if (e.efficiency > kMaxDeviceEfficiency)
    return fmt::format("{}: an efficiency is at most 1 (expected --like a library device whose {} peak is above "
                       "that rate)",
                       did, e.dtype);
  return fmt::format("{}: below the smallest efficiency a scenario takes, {:g} (expected --like a library device "
                     "whose {} peak is nearer that rate)",
                     did, kMinDeviceEfficiency, e.dtype);
}

std::string device_profile_fragment(const DeviceEfficiency& e, const ProfileMeasuredAt& at,
                                    const std::string& scenario) {
  // Free text (the host's CPU name, paths) is escaped: a control character must not end a
  // comment line and turn the rest into YAML.
  std::string out = "# A device profile entry measured by `geotrain profile --device-entry` (docs/devices.md).\n";
  out += fmt::format("# Measured {} on {} (host CPU: {}; LibTorch {}, {} torch thread(s), {} timed run(s) per op\n"
                     "# after {} warm-up), for {} (model dtype {}).\n",
                     printable(at.date), printable(at.device), printable(at.host), printable(at.torch),
                     at.torch_threads, at.repeat, at.warmup, printable(scenario), e.dtype);
  out += fmt::format(
      "# {} forward/backward op(s): {:.4g} flop/s achieved = {:.6g} x the {} peak of {} ({:.4g} flop/s).\n", e.ops,
      e.achieved_flops, e.efficiency, e.dtype, e.like, e.peak_flops);
  out += fmt::format(
      "# The efficiency is a share of the {} peak: use the entry in scenarios whose model dtype is {}.\n", e.dtype,
      e.dtype);
  if (e.dtype != "fp32")
    out += fmt::format("# geotrain-worker computes in fp32 whatever the dtype: this entry reproduces its times, not\n"
                       "# the card's own {} efficiency.\n",
                       e.dtype);
  out += "# Merge into a scenario's devices: section, then name the profile (devices.profile, groups, overrides).\n";
  out += fmt::format("devices:\n  profiles:\n    {}: {{like: {}, efficiency: {:.6g}}}\n", e.profile, e.like,
                     e.efficiency);
  return out;
}

}  // namespace geotrain
