#pragma once
// Expands a sweep spec into runs: the cartesian product of the varied values (the first key
// varies slowest, values in file order) times the strategies (in file order). Each run carries
// the `--set` overrides that turn the base scenario into its effective scenario, and a hash of
// that effective scenario (base text + overrides) that keys its result for resume and merge.
#include <cstddef>
#include <string>
#include <vector>

#include "sim/sweep/sweep_spec.hpp"

namespace geotrain::sweep {

struct PointRun {
  std::size_t point = 0;            // index in the cartesian product
  std::size_t strategy = 0;         // index in spec.strategies
  std::vector<std::string> values;  // one per varied key
  std::vector<std::string> sets;    // key.path=value, the strategy block last
  std::string hash;                 // fnv1a64 of the effective scenario
};

// --shard i/n: 1-based i; point p belongs to shard (p mod n) + 1.
struct Shard {
  int index = 1;
  int count = 1;
};
Shard parse_shard(const std::string& text);  // "i/n"; throws InputError
bool in_shard(std::size_t point, const Shard& shard);

// Saturates at SIZE_MAX: a spec may describe more points than a size_t counts.
std::size_t point_count(const SweepSpec& spec);
// Points and runs of one shard, counted without expanding them (a spec may describe more runs
// than fit in memory; the run bound is checked before anything is built).
std::size_t shard_point_count(const SweepSpec& spec, const Shard& shard);
std::size_t shard_run_count(const SweepSpec& spec, const Shard& shard);
// All runs of the shard, ordered by point then strategy.
std::vector<PointRun> expand(const SweepSpec& spec, const std::string& base_text,
                             const Shard& shard = {});

}  // namespace geotrain::sweep
