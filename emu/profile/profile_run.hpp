#pragma once
// `geotrain profile SCENARIO`: the scenario's compute profile measured on this machine before any
// run, in one process and without a network. Builds the Program and the worker job, lists the
// Program's distinct Compute ops (kind, stage, layer range, sequences), runs
// `geotrain-worker --profile` on them and writes compute_profile.json in the format
// `simulate` reads (sim/workload/compute_profile.hpp), with measured_at.
#include <string>
#include <vector>

namespace geotrain::profile {

struct ProfileOptions {
  std::string scenario_path;
  std::vector<std::string> sets;  // --set key=value
  std::string device = "cpu";     // cpu | cuda
  int threads = 0;                // torch threads; 0: the scenario's emulation.torch_threads
  int repeat = 10;                // timed runs per op
  int warmup = 2;                 // untimed runs before them
  std::string out;                // the profile file; "" = results/<scenario>/profile/<NNN>/compute_profile.json
  std::string results = "results";
  std::string worker;             // geotrain-worker; "" = $GEOTRAIN_WORKER or next to geotrain
};

struct ProfileResult {
  std::string path;     // the profile written
  std::size_t ops = 0;  // its entries
  int stages = 0;       // stages (representative ranks) timed
  double wall_s = 0;
};

// Throws InputError (nothing written) for a bad scenario or flag, no worker, a stage that does
// not fit in memory (both figures; CPU: MemAvailable, CUDA: the worker's check of free GPU
// memory), or the worker's own refusal (its line, e.g. --device cuda on a CPU-only build);
// Error when the worker fails otherwise.
ProfileResult run_profile(const ProfileOptions& options);

}  // namespace geotrain::profile
