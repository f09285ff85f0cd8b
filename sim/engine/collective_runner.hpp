#pragma once
// Runs one Collective op for one rank (inside the rank's lane for that group). Picks the form:
//  - ring all-reduce / reduce-scatter / all-gather over more than
//    simulation.aggregate_collectives_above members: the aggregated ring (aggregated_ring.hpp);
//  - direct collectives over more than simulation.aggregate_collectives_above members: flow
//    groups shared max-min (aggregated_direct.hpp);
//  - everything else: the point-to-point steps of sim/program/collective_schedule.hpp replayed
//    message by message (schedule_replay.hpp), the same steps the emulator's worker runs.
//  - algorithm `library` (or every collective, with emulation.collectives: gloo): Gloo's own
//    algorithm as the worker's LibTorch runs it, segments and two-in-flight window included
//    (sim/program/gloo_algorithms.hpp, replayed by gloo_replay.hpp). With emulation.collectives:
//    nccl, algorithm `library` is NCCL's own and is modelled by the closest Program schedule
//    (modelled_algorithm: ring for all-reduce).
#include "sim/engine/sim_context.hpp"

namespace geotrain::engine {

// The algorithm the emulator would run for `op`: library for all under library_collectives; for
// NCCL's library collectives, the Program schedule that models them.
CollectiveAlgorithm modelled_algorithm(const CollectiveOp& op, const EngineSettings& settings);
bool uses_aggregated_ring(const CollectiveOp& op, int group_size, const EngineSettings& settings);
// Whether the direct collective runs in its aggregated form (aggregated_direct.hpp).
bool runs_aggregated_direct(const SimContext& ctx, const CollectiveOp& op, int group_size);

// Checks, before the simulation starts, that every collective of the program has a schedule
// (throws InputError naming the rank, op and what is unsupported).
void check_collectives(const Program& program, const EngineSettings& settings);

void run_collective(SimContext& ctx, int rank, const CollectiveOp& op, OpRecord& record);

}  // namespace geotrain::engine
