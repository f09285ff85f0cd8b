#pragma once
// Runs a sweep's missing runs, `jobs` at a time, each in a forked child (SimGrid allows one
// simulation per process). A child writes its result file atomically and exits; the parent only
// counts, reports skipped points and draws the progress line. Runs whose result file exists are
// skipped (resume). The first wave (one run per job, spread over the grid) is timed and, before
// the rest starts, gives an estimate of how long the rest takes.
#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "sim/sweep/expansion.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace geotrain::sweep {

struct RunCounts {
  std::size_t total = 0;         // runs in this shard
  std::size_t already_done = 0;  // found on disk (resume)
  std::size_t ran = 0;           // simulated now
  std::size_t skipped = 0;       // of `ran`: invalid scenario or failed simulation
};

class SweepRunner {
 public:
  SweepRunner(const SweepSpec& spec, std::string base_text, std::string points_dir, int jobs);
  RunCounts run(const std::vector<PointRun>& runs);

 private:
  void start(const PointRun& run, std::size_t index);
  // Waits for one child; returns false when none is left.
  bool reap(RunCounts& counts, class ProgressMeter& meter, const std::vector<PointRun>& runs);

  struct Child {
    int pid;
    std::size_t index;  // into runs
    std::chrono::steady_clock::time_point started;
  };

  const SweepSpec& spec_;
  std::string base_text_;
  std::string points_dir_;
  int jobs_;
  std::vector<Child> children_;
  double reaped_wall_s_ = 0;  // wall time of every run reaped so far, for the estimate
};

// All cores this process may use.
int default_jobs();

// todo reordered so that its first k entries are spread evenly over it (the first and the last
// among them): the first key of a spec varies slowest, so these span its values.
std::vector<std::size_t> spread_first(const std::vector<std::size_t>& todo, std::size_t k);

}  // namespace geotrain::sweep
