#pragma once
// Simulates one point x strategy. SimGrid allows one simulation per process, so the runner calls
// this in a freshly forked child. An invalid effective scenario (e.g. stages x replicas != devices)
// or a failed run comes back as a skipped result with the reason; it never throws for those.
#include <string>

#include "sim/sweep/expansion.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/sweep/sweep_spec.hpp"

namespace geotrain::sweep {

PointResult simulate_point(const SweepSpec& spec, const std::string& base_text,
                           const PointRun& run);

// `replicas: auto` in a strategy block: devices / stages at this point, found by loading the
// point's scenario with a strategy that fits any device count. Returns `sets` with the strategy
// block's replicas filled in (unchanged when there is no `auto`). Throws InputError.
std::vector<std::string> resolve_auto_replicas(const std::string& base_text,
                                               const std::string& base_path,
                                               const std::vector<std::string>& sets);

}  // namespace geotrain::sweep
