#pragma once
// How busy the emulation host was over the measured steps (ProfileHost in
// sim/workload/compute_profile.hpp), from what the workers recorded: each step's end reading of
// the machine's busy CPU seconds (iterations.csv host_busy_s) and each Compute op's CPU time
// (ops.csv cpu_s). The span runs from rank 0's end of the last warm-up step to its end of the
// last step; the Compute ops counted are those of every rank that ran inside it.
#include <optional>

#include "emu/launch/rank_files.hpp"
#include "emu/launch/run_results.hpp"
#include "sim/workload/compute_profile.hpp"

namespace geotrain::emu {

// Empty when the run cannot say: no shared machine (cores <= 0), fewer than warmup + 1 steps, or
// readings missing (workers older than these columns).
std::optional<ProfileHost> host_cpu_figures(const RankMeasurements& m, int warmup, int cores);

}  // namespace geotrain::emu
