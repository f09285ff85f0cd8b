#pragma once
// A device's measured efficiency as a device profile entry (`geotrain profile --device-entry`):
// the flop rate the profiled forward and backward ops reached, as a share of a library device's
// peak for the scenario's model dtype, and the scenario fragment that declares the entry. Pure
// arithmetic and text; emu/profile writes the files.
//
//   achieved   = sum of flops / sum of median_s over the profile's forward and backward entries
//                (each distinct op once, as profiled)
//   efficiency = achieved / peak_flops(dtype) of the library device
//
// The device model times a forward/backward op as flops / (peak x efficiency), so a scenario
// profile {like: <device>, efficiency: <e>} gives the profiled ops together exactly their
// measured time: sum of flops_i / achieved = sum of median_i (docs/devices.md).
#include <optional>
#include <string>
#include <vector>

#include "sim/workload/compute_profile.hpp"

namespace geotrain {

// `entries` against library device `like` for `dtype`, as the entry called `profile`. Throws
// InputError when `like` is not in the device library, Error when no forward or backward entry
// has flops and a median above 0.
DeviceEfficiency measure_device_efficiency(const std::vector<ProfileEntry>& entries,
                                           const std::string& profile, const std::string& like,
                                           DType dtype);

// nullopt when the efficiency is one a scenario accepts (kMinDeviceEfficiency ... 1); else why
// it cannot be an entry, with the figures ("this device did 1.8e+11 flop/s, 1.8 x the fp32 peak
// of cpu (1e+11 flop/s); ...").
std::optional<std::string> device_efficiency_problem(const DeviceEfficiency& e);

// The text of device_profile.yaml: comment lines saying what was measured where and when, then
//   devices:
//     profiles:
//       <profile>: {like: <like>, efficiency: <6 significant digits>}
// `scenario`: the scenario file it was measured for (a comment).
std::string device_profile_fragment(const DeviceEfficiency& e, const ProfileMeasuredAt& at,
                                    const std::string& scenario);

}  // namespace geotrain
