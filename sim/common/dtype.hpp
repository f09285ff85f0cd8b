#pragma once
// Element types of tensors on the wire and in compute. Here, at the bottom, because both the
// model (sim/scenario) and the Program IR (sim/program: what a pseudo-gradient travels in) name them.
#include <cstddef>

namespace geotrain {

enum class DType { fp32, fp16, bf16 };

std::size_t dtype_bytes(DType t);
const char* dtype_name(DType t);

}  // namespace geotrain
