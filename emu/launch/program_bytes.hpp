#pragma once
// The bytes each rank of a Program sends in one iteration, as the worker counts them: a Send
// moves its bytes, a collective the elements its collective_schedule() steps send times the
// gradient dtype size. Library collectives (algorithm: library, or --collectives gloo) are not
// countable: -1. Collectives whose payload is DiLoCo's pseudo-gradient move `wire_dtype`
// elements (default: the gradient dtype). Compressed collectives move their wire bytes
// (sim/program/compression.hpp).
#include <optional>
#include <vector>

#include "sim/program/program.hpp"
#include "sim/scenario/model_spec.hpp"

namespace geotrain::emu {

double program_op_bytes(const Program& program, int rank, int op, DType gradient_dtype,
                        std::optional<DType> wire_dtype = std::nullopt);

// Per rank, per iteration; -1 for a rank with any op that is not countable.
std::vector<double> program_bytes_per_rank(const Program& program, DType gradient_dtype,
                                           std::optional<DType> wire_dtype = std::nullopt);

}  // namespace geotrain::emu
