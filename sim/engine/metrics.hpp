#pragma once
// Turns the per-op records of a finished run into SimulationResult's figures.
//
// Definitions (README.md, "Result files"):
//  - iteration time = makespan / iterations (iterations run back to back without a barrier);
//  - per rank: compute = time in Compute ops; communication = time blocked in Send, Recv,
//    Collective or Wait while data moved; idle = the rest of the run (blocked waiting for a peer:
//    a sender that had not started, a group member that had not entered; or finished early);
//  - bubble fraction (pipelines only) = 1 - mean over ranks of forward+backward compute time /
//    the span from the iteration's start to its last forward/backward op, averaged over
//    iterations (GPipe without communication: (S-1)/(M+S-1)).
#include "sim/engine/sim_context.hpp"
#include "sim/engine/simulation.hpp"

namespace geotrain::engine {

SimulationResult summarize(SimContext& ctx, const Scenario& scenario);

// Idle part of a blocked interval [a, b] that overlaps the waiting interval [from, to].
double overlap_s(double a, double b, double from, double to);

}  // namespace geotrain::engine
