#pragma once
// Speed benchmark of `geotrain simulate` (figures reported in sim/engine/README.md): each case
// runs in its own child process so that its peak memory (getrusage of the child) is its own.
#include <string>
#include <vector>

namespace geotrain::bench {

struct SimBenchCase {
  std::string id;        // "a", "b-gpipe", ...
  std::string scenario;  // path
  std::string what;
  std::vector<std::string> sets = {};  // scenario overrides (key.path=value), as --set takes them
  // Runs by default (`geotrain bench` without --only or --all): the original cases a to e-ddp.
  // The per-strategy and 262,144-device rows of issue 35 run only when asked for.
  bool in_default = true;
};

struct SimBenchResult {
  SimBenchCase c;
  bool ok = false;
  std::string error;
  int world_size = 0;
  double build_program_s = 0;     // wall time of build_program
  double simulate_s = 0;          // wall time of platform build + simulation
  double total_s = 0;             // child wall time: load + build + simulate
  double peak_rss_bytes = 0;      // the child's peak resident set
  double peak_rss_per_device_bytes = 0;  // peak_rss_bytes / world_size (0 when the case failed)
  double cpu_s = 0;               // the child's user + system CPU time (robust to a busy machine)
  double iteration_time_s = 0;    // simulated
};

// (a) DT-FM case 5, 64 devices, gpipe 8x8; (b) 1,024, (c) 4,096, (d) 16,384 and (e) 65,536
// devices in world cities, gpipe and ddp-allreduce ((d) and (e) are the 4,096-device scenarios
// with more replicas). Not in the default run (in_default false): every other strategy at
// 4,096 / 16,384 / 65,536 devices (c-, d-, e-<strategy>: the scenarios/bench/world_<n>_<strategy>
// files with --set devices.count, global batch 2 x devices, pipelines 2 x devices/2) and (f)
// gpipe 16 x 16,384 and ddp-allreduce at 262,144 devices. source_dir: where scenarios/ lives.
std::vector<SimBenchCase> sim_bench_cases(const std::string& source_dir);

// Whether `only` (ids from --only, each an exact id, or a prefix ending in '-' or '*': "e-" and
// "e-*" select every e-* case) selects the case; an empty list selects the default cases, or
// every case when all is true.
bool sim_bench_selected(const SimBenchCase& c, const std::vector<std::string>& only, bool all);

SimBenchResult run_sim_bench_case(const SimBenchCase& c);

}  // namespace geotrain::bench
