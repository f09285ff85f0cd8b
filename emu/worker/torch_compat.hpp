#pragma once
// Everything that differs between the two LibTorch versions the worker builds against, in one
// place: Debian's LibTorch 1.13 (CPU, Gloo; the development machines and CI) and the LibTorch
// inside PyTorch 2.x's Python package (CUDA and NCCL; GPU machines, docs/gpu.md).
//
//  - The base class of the process groups. In 1.13 ProcessGroupGloo derives from
//    c10d::ProcessGroup; from 2.0 on ProcessGroup is a front that dispatches to backends, and
//    ProcessGroupGloo / ProcessGroupNCCL derive from c10d::Backend. The methods the worker calls
//    (send, recv, allreduce, broadcast, reduce, gather, scatter, allgather) have the same
//    signatures on both bases.
//  - Coalescing point-to-point ops (NCCL's group calls). 1.13's endCoalescing takes the works
//    to fill; 2.x's returns one Work for the whole batch. Only NCCL needs it, and the 1.13 build
//    has no NCCL, so the 1.13 branch never coalesces.
#include <torch/version.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif

namespace geotrain::compat {

#if TORCH_VERSION_MAJOR >= 2
using CommGroup = c10d::Backend;
inline constexpr bool kCanCoalesce = true;
inline void start_coalescing(CommGroup& g) { g.startCoalescing(); }
inline c10::intrusive_ptr<c10d::Work> end_coalescing(CommGroup& g) { return g.endCoalescing(); }
#else
using CommGroup = c10d::ProcessGroup;
inline constexpr bool kCanCoalesce = false;
inline void start_coalescing(CommGroup&) {}
inline c10::intrusive_ptr<c10d::Work> end_coalescing(CommGroup&) { return {}; }
#endif

}  // namespace geotrain::compat
