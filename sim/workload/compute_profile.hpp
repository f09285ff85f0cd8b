#pragma once
// The measured compute profile: per-op timings the emulator measures and the simulator looks up
// (ComputeModel, simulation.compute_profile). This file owns the format; sim/workload/README.md
// shows an example.
//
//   {"format": "geotrain-compute-profile", "version": 1,
//    "model": "gpt-tiny", "device_profile": "cpu",          // informational
//    "ops": [{"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 2,
//             "sequences": 4, "flops": 1.2e9,
//             "median_s": 0.0123, "samples_s": [0.0121, 0.0123, 0.0130]}, ...]}
//
// kind: forward | backward | optimizer | other; [layer_begin, layer_end) in the scenario's model;
// sequences per op (0 or absent for the optimizer); flops optional when reading (derived from the
// scenario's model for forward/backward/optimizer, required for other); median_s is what the
// simulator uses, samples_s keeps the raw measurements. Times are for a device with slowdown 1.
#include <string>
#include <vector>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

struct ProfileEntry {
  ComputeKind kind = ComputeKind::forward;
  int stage = 0;
  int layer_begin = 0, layer_end = 0;
  double sequences = 0;
  double flops = 0;
  double median_s = 0;
  std::vector<double> samples_s;
};

// One measured execution of a Compute op (what the emulator records).
struct ProfileSample {
  ComputeOp op;
  double seconds = 0;
};

// Groups samples by (kind, stage, layer range, sequences), in first-seen order; each entry gets
// the median (mean of the two middle values for an even count) and its samples in order.
std::vector<ProfileEntry> summarize_samples(const std::vector<ProfileSample>& samples);

std::string compute_profile_json(const std::vector<ProfileEntry>& entries, const std::string& model,
                                 const std::string& device_profile);
// Throws SystemError when the file cannot be written.
void write_compute_profile(const std::string& path, const std::vector<ProfileEntry>& entries,
                           const std::string& model, const std::string& device_profile);

// Reads and checks a profile against the scenario's model. Throws InputError listing every bad
// field ("profile.json: ops[3].kind = "fwd": unknown kind (expected forward, ...)").
std::vector<ProfileEntry> read_compute_profile(const std::string& path, const Scenario& scenario);

}  // namespace geotrain
