#pragma once
// One `geotrain sweep SPEC` invocation from start to end: load and check the spec and the size
// of its shard (nothing is written before both pass), expand the shard, run what is missing,
// then write sweep.csv and sweep.json from every result on disk.
#include <cstddef>
#include <string>

#include "sim/sweep/expansion.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_table.hpp"

namespace geotrain::sweep {

// Runs one invocation may simulate without --max-runs. The bundled specs are 1,008 and 5,120
// runs (the 5,120 of the benchmark take ~90 s on 2 cores); a grid that grew by an extra key or a
// long list by mistake is 10-1000 times that, hours to days, and is stopped before it starts.
inline constexpr std::size_t kDefaultMaxRuns = 10'000;

struct SweepJobOptions {
  std::string spec;
  std::string out;  // default results/sweeps/<spec name>
  int jobs = 0;     // 0: every core
  Shard shard;
  // Bound on the runs of this invocation, i.e. of its shard: sharding is how a large grid is
  // meant to run, each shard within the bound (docs/sweep.md, "How many runs").
  std::size_t max_runs = kDefaultMaxRuns;
};

struct SweepOutcome {
  std::string dir;
  RunCounts run;
  TableCounts table;
};

SweepOutcome run_sweep(const SweepJobOptions& options);

// Rejects an output folder that already holds a different sweep (its sweep.json names another
// spec): results of two specs must not mix. Throws InputError.
void check_output_folder(const std::string& dir, const std::string& spec_name);

// "24 runs (8 points x 3 strategies)", or "9 runs in shard 1/3 (3 of 8 points x 3 strategies)".
std::string run_count_text(const SweepSpec& spec, const Shard& shard);

// Throws InputError, naming the spec, the count, the bound and --max-runs, when the shard has
// more than max_runs runs.
void check_run_bound(const SweepSpec& spec, const Shard& shard, std::size_t max_runs);

// DIR/points: one result file per run.
std::string points_dir_of(const std::string& dir);

}  // namespace geotrain::sweep
