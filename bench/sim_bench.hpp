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
  double cpu_s = 0;               // the child's user + system CPU time (robust to a busy machine)
  double iteration_time_s = 0;    // simulated
};

// (a) DT-FM case 5, 64 devices, gpipe 8x8; (b) 1,024, (c) 4,096, (d) 16,384 and (e) 65,536
// devices in world cities, gpipe and ddp-allreduce ((d) and (e) are the 4,096-device scenarios
// with more replicas). source_dir: where scenarios/ lives.
std::vector<SimBenchCase> sim_bench_cases(const std::string& source_dir);

SimBenchResult run_sim_bench_case(const SimBenchCase& c);

}  // namespace geotrain::bench
