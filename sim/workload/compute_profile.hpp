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
// simulator uses, samples_s keeps the raw measurements. An op's entry is the one of its kind,
// stage, layers and sequences; for kind other also its flops (a compressed exchange's encoder and
// decoder, and DiLoCo's pseudo-gradient, all span the whole model). Times are for a device with slowdown 1
// and without the seeded straggler sleeps (the simulator applies both itself).
// Optional cpu_median_s / cpu_samples_s: the CPU time the worker's thread used in each execution
// (the op's duration with a core to itself); the host-cores model (simulation.host_cores) runs
// them on the emulation host's shared cores instead of using the wall times above.
// Optional sample_sites: [[rank, step, op], ...], one per sample (same order): where in the
// measured run each execution happened (rank, step, op index in that rank's Program), which
// compute_variance: steps draws by (whole measured steps, all ranks together).
// Optional warmup_samples_s / warmup_cpu_samples_s / warmup_sample_sites (sites required with
// the samples, one per sample): the executions of the run's warm-up steps, left out of median_s
// and samples_s. The first iteration is not a typical one (cold caches and allocator, and every
// rank starts it at the same moment on the same cores), and where ranks run free of each other
// (an averaging timeout, gossip) its spread sets who meets whom for the rest of the run, so
// compute_variance: steps replays the run's warm-up step i for the simulation's iteration i.
// Optional measured_at (written by `geotrain profile`, a plan made before any run): what the
// profile was measured at, so one device's profile serves every scenario with the same stage
// shapes: {"by": "geotrain profile", "model": {"layers", "d_model", "heads", "seq_len", "vocab",
// "dtype"}, "optimizer", "device", "torch_threads", "torch", "host", "date", "repeat", "warmup"}.
// A profile with it is strict: the scenario's model must match and every Compute op of the
// Program needs its own entry (ComputeModel::require_entries); one without it (the emulator's)
// keeps the nearest-entry fallback. Files without it load as before (version stays 1).
// Optional device_efficiency (written by `geotrain profile --device-entry NAME`): the forward and
// backward ops' flop rate as a share of a library device's peak (DeviceEfficiency below,
// device_efficiency.hpp); informational when read, files without it load as before.
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

// Where one sample was measured (rank, step and op index in the rank's Program list).
struct SampleSite {
  int rank = -1;
  int step = -1;
  int op = -1;
  bool known() const { return rank >= 0 && step >= 0 && op >= 0; }
};

struct ProfileEntry {
  ComputeKind kind = ComputeKind::forward;
  int stage = 0;
  int layer_begin = 0, layer_end = 0;
  double sequences = 0;
  double flops = 0;
  double median_s = 0;
  std::vector<double> samples_s;
  double cpu_median_s = -1;  // -1: not measured
  std::vector<double> cpu_samples_s;
  std::vector<SampleSite> sample_sites;  // parallel to samples_s, or empty (not recorded)
  // The warm-up steps' executions (see the file's comment): parallel lists, the CPU times empty
  // when not measured; empty when the run recorded none.
  std::vector<double> warmup_samples_s;
  std::vector<double> warmup_cpu_samples_s;
  std::vector<SampleSite> warmup_sample_sites;
  bool has_cpu_time() const { return cpu_median_s >= 0; }
  // Whether this entry is the measurement of `op`: same kind, stage, layers and sequences, and
  // for an `other` op (a codec, an averaging) the same flops, which tell such ops apart.
  bool measures(const ComputeOp& op) const;
  // This entry's op, as measures() sees it: the fields above in a ComputeOp.
  ComputeOp op() const;
};

// One measured execution of a Compute op (what the emulator records).
struct ProfileSample {
  ComputeOp op;
  double seconds = 0;
  double cpu_seconds = std::nan("");  // NaN: not measured
  SampleSite site;                    // unknown unless set
  bool warmup = false;                // from a warm-up step: kept apart from the medians
};

// How busy the machine was while every rank shared it (geotrain emulate), over the measured
// steps: "host": {"cores", "span_s", "busy_core_s", "compute_core_s", "background_cores"}.
// background_cores = (busy - compute) / span: the CPUs taken by everything but Compute ops
// (Gloo's threads, the delayer, the kernel's shaping), which the host-cores model leaves to
// compute as cores - background_cores (docs/simulator-models.md).
struct ProfileHost {
  int cores = 0;
  double span_s = 0;
  double busy_core_s = 0;
  double compute_core_s = 0;
  double background_cores = 0;
};

// What a planned profile was measured at (measured_at above).
struct ProfileMeasuredAt {
  std::string by = "geotrain profile";
  int layers = 0, d_model = 0, heads = 0, seq_len = 0, vocab = 0;
  std::string dtype;      // the scenario's model dtype ("fp16"); the worker computes in fp32
  std::string optimizer;  // sgd | adam | adamw
  std::string device;     // "cpu" or "cuda:0 (<the GPU's name>)"
  int torch_threads = 0;
  std::string torch;  // LibTorch version
  std::string host;   // the CPU's model name (/proc/cpuinfo)
  std::string date;   // UTC, ISO 8601
  int repeat = 0, warmup = 0;
  double min_seconds = 0;  // timed rounds went on until a stage's had taken this long
  int concurrent = 1;      // workers that timed the ops at once (geotrain profile --concurrent)
};

// What `geotrain profile --device-entry` measured: "device_efficiency": {"profile", "like",
// "dtype", "achieved_flops", "peak_flops", "efficiency", "ops"}.
struct DeviceEfficiency {
  std::string profile;        // the entry's name (--device-entry)
  std::string like;           // the library device (device_library.hpp) it is measured against
  std::string dtype;          // the scenario's model dtype, whose peak that is
  double achieved_flops = 0;  // sum of flops / sum of median_s over the forward/backward entries
  double peak_flops = 0;      // the library device's peak for dtype
  double efficiency = 0;      // achieved / peak
  int ops = 0;                // forward/backward entries summed
};

// The measured_at of a scenario's model and optimizer (device, host and the rest left empty).
ProfileMeasuredAt measured_at_of(const Scenario& scenario);
// "" when the scenario has the model and optimizer `m` was measured for, else what differs:
// "d_model 256, the scenario has 512" (several joined by "; ").
std::string measured_at_mismatch(const ProfileMeasuredAt& m, const Scenario& scenario);

// Groups samples by (kind, stage, layer range, sequences), in first-seen order; each entry gets
// the median (mean of the two middle values for an even count) and its samples in order, with
// their sites when every sample has one. Warm-up samples (ProfileSample::warmup) with a site go to
// the warmup_* lists of the entry their op has among the other samples (none: left out).
std::vector<ProfileEntry> summarize_samples(const std::vector<ProfileSample>& samples);

std::string compute_profile_json(const std::vector<ProfileEntry>& entries, const std::string& model,
                                 const std::string& device_profile, const ProfileHost* host = nullptr,
                                 const ProfileMeasuredAt* measured_at = nullptr,
                                 const DeviceEfficiency* efficiency = nullptr);
// Throws SystemError when the file cannot be written.
void write_compute_profile(const std::string& path, const std::vector<ProfileEntry>& entries,
                           const std::string& model, const std::string& device_profile,
                           const ProfileHost* host = nullptr, const ProfileMeasuredAt* measured_at = nullptr,
                           const DeviceEfficiency* efficiency = nullptr);
// The profile's "measured_at" object, if it has one (throws InputError when it is malformed).
std::optional<ProfileMeasuredAt> read_profile_measured_at(const std::string& path);
// The profile's "host" object, if it has one (throws InputError when it is malformed).
std::optional<ProfileHost> read_profile_host(const std::string& path);

// Reads and checks a profile against the scenario's model. Throws InputError listing every bad
// field ("profile.json: ops[3].kind = "fwd": unknown kind (expected forward, ...)").
std::vector<ProfileEntry> read_compute_profile(const std::string& path, const Scenario& scenario);

}  // namespace geotrain
