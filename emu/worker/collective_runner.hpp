#pragma once
// Runs one Collective op of the Program on a flat 1-D tensor, with real traffic:
//  - p2p: the steps of collective_schedule() (sim/program/collective_schedule.hpp), each step's
//    sends and receives posted at once on the group's process group (one group call on NCCL),
//    then summed / copied; exactly what a simulator replaying the same schedule models.
//  - library: the backend's own collective, Gloo's or NCCL's (allreduce, broadcast, reduce,
//    gather, scatter, allgather; Gloo 1.13 has no reduce_scatter, so neither does the worker).
// Then it averages where the reduction completes (see README.md): allreduce everyone,
// reduce_scatter each member its own chunk, gather/reduce the root. Returns the bytes this rank
// sent (counted from the tensors it handed to send), or -1 for library collectives.
#include <torch/torch.h>

#include "emu/worker/cluster.hpp"

namespace geotrain {

double run_collective(Cluster& cluster, const Program& program, const CollectiveOp& op,
                      torch::Tensor buffer, bool use_library);

}  // namespace geotrain
