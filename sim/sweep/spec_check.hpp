#pragma once
// Checks a sweep spec against its base scenario before anything runs, so that a typo costs one
// error line pointing into the spec instead of a thousand skipped points:
// - the base must load as a scenario on its own (a text file, or the spec itself, is one line
//   at `base:`, not every point skipped);
// - every varied key must be a scenario key (the scenario loader applies it like `--set`);
// - a value the loader rejects on its own (a bad unit) is an error at that key's line;
// - every strategy block must name a known strategy with known parameters;
// - a varied key that another key makes inert (placement.file with placement.kind identity) is
//   an error when that other key is not varied too.
// Problems that depend on the combination (stages > devices) are left to the points.
#include <string>

#include "sim/sweep/sweep_spec.hpp"

namespace geotrain::sweep {

// Reads the base scenario's text; throws InputError at the spec's `base:` line when it cannot.
std::string read_base_text(const SweepSpec& spec);

// Loads the base as written; throws InputError with one line at the spec's `base:` when it is
// not a valid scenario.
void check_base(const SweepSpec& spec, const std::string& base_text);

// check_base, then every varied key and strategy block; throws InputError with one line per
// problem, in the spec's terms.
void check_against_base(const SweepSpec& spec, const std::string& base_text);

}  // namespace geotrain::sweep
