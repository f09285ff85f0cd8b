#pragma once
// `geotrain profile SCENARIO`: the scenario's compute profile measured on this machine before any
// run, in one process and without a network. Builds the Program and the worker job, lists the
// Program's distinct Compute ops (kind, stage, layer range, sequences), runs
// `geotrain-worker --profile` on them and writes compute_profile.json in the format
// `simulate` reads (sim/workload/compute_profile.hpp), with measured_at. With --device-entry
// NAME it also measures the device's efficiency against a device library entry's peak
// (sim/workload/device_efficiency.hpp): device_efficiency in the profile, and next to it
// device_profile.yaml, a scenario fragment declaring profile NAME {like, efficiency}.
#include <optional>
#include <string>
#include <vector>

#include "sim/workload/compute_profile.hpp"

namespace geotrain::profile {

struct ProfileOptions {
  std::string scenario_path;
  std::vector<std::string> sets;  // --set key=value
  std::string device = "cpu";     // cpu | cuda
  int threads = 0;                // torch threads; 0: the scenario's emulation.torch_threads
  int repeat = 10;                // timed runs per op
  int warmup = 2;                 // untimed runs before them
  double min_seconds = 0;         // timed rounds continue until each stage's have taken this long
  int concurrent = 1;             // workers timing the ops at once, their samples pooled: the load of a
                                  // run with that many ranks on the host (switches, cold caches)
  std::string out;                // the profile file; "" = results/<scenario>/profile/<NNN>/compute_profile.json
  std::string results = "results";
  std::string worker;             // geotrain-worker; "" = $GEOTRAIN_WORKER or next to geotrain
  std::string device_entry;       // "" or the profile name the measured efficiency is written as
  std::string like;               // its library device; "" = the scenario's first device's profile
};

// The fragment's file name, next to the profile (fixed: no input chooses it).
inline constexpr const char* kDeviceProfileFile = "device_profile.yaml";

struct ProfileResult {
  std::string path;     // the profile written
  std::size_t ops = 0;  // its entries
  int stages = 0;       // stages (representative ranks) timed
  double wall_s = 0;
  std::optional<DeviceEfficiency> efficiency;  // with device_entry
  std::string device_profile_path;             // device_profile.yaml, with device_entry
};

// Throws InputError (nothing written) for a bad scenario or flag, no worker, a stage that does
// not fit in memory (both figures; CPU: MemAvailable, CUDA: the worker's check of free GPU
// memory), or the worker's own refusal (its line, e.g. --device cuda on a CPU-only build);
// Error when the worker fails otherwise. With device_entry: InputError (nothing written) for a
// name that is no identifier, a --like outside the device library (or, without --like, a first
// device whose profile is not in it) or a device_profile.yaml already next to --out; Error when
// the efficiency is outside 1e-6 ... 1 (the profile is written then, without device_efficiency,
// and no fragment: the library peak is below, or far above, what the device did).
ProfileResult run_profile(const ProfileOptions& options);

}  // namespace geotrain::profile
