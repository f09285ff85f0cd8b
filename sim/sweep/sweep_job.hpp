#pragma once
// One `geotrain sweep SPEC` invocation from start to end: load and check the spec (nothing is
// written before it passes), expand the shard, run what is missing, then write sweep.csv and
// sweep.json from every result on disk.
#include <string>

#include "sim/sweep/expansion.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "sim/sweep/sweep_table.hpp"

namespace geotrain::sweep {

struct SweepJobOptions {
  std::string spec;
  std::string out;  // default results/sweeps/<spec name>
  int jobs = 0;     // 0: every core
  Shard shard;
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

// DIR/points: one result file per run.
std::string points_dir_of(const std::string& dir);

}  // namespace geotrain::sweep
