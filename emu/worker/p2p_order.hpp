#pragma once
// Whether a Program's point-to-point transfers can run on NCCL as the worker posts them.
//
// Gloo matches a send with the receive of the same tag, in any order. NCCL ignores tags: the
// transfers between two ranks run in the order they were posted, on one stream per pair and
// process group, each waiting for the peer's transfer at the same position. A rank that posts a
// receive early (SD-Pipe and HetPipe pre-post the gradient they will need) would then block its
// own later send behind it, and the pair would wait on each other forever. So on NCCL the worker
// sends "up" (to a higher rank) on one world group and "down" on another (Cluster): each carries
// one direction of each pair, and all that remains required is that A's k-th send to B is B's
// k-th receive from A, of the same size (else one receives the wrong message, or waits forever).
// Torch-free, checked before the worker joins the cluster (tests/worker).
#include <string>

#include "sim/program/program.hpp"

namespace geotrain {

// "" when, for every ordered pair (A, B), A's sends to B and B's receives from A match position
// by position in every epoch of the Program (ops inactive in an epoch's first iteration left
// out), else one line naming the direction, the position and both ops.
std::string nccl_p2p_order_problem(const Program& program);

}  // namespace geotrain
