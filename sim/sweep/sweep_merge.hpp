#pragma once
// `geotrain sweep --merge DIR...`: joins the outputs of `--shard i/n` runs into one folder. Every
// DIR must come from the same spec and base scenario (same sweep.json `spec`); the result files
// are copied into OUT/points and the full table is written as a single run would, so the union
// of n shards gives the same sweep.csv as the whole sweep.
#include <string>
#include <vector>

#include "sim/sweep/sweep_job.hpp"

namespace geotrain::sweep {

struct MergeOptions {
  std::vector<std::string> dirs;
  std::string out;   // default results/sweeps/<spec name>
  std::string spec;  // default: the spec file named in the shards' sweep.json
};

SweepOutcome merge_sweeps(const MergeOptions& options);

}  // namespace geotrain::sweep
