#pragma once
// Element types of tensors on the wire and in compute. Here, at the bottom, because both the
// model (sim/scenario) and the Program IR (sim/program: what a pseudo-gradient travels in) name them.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace geotrain {

enum class DType { fp32, fp16, bf16 };

std::size_t dtype_bytes(DType t);
const char* dtype_name(DType t);
// "fp32", "fp16", "bf16": the names scenarios, Program files and worker jobs use.
const std::vector<std::string>& dtype_names();
// The DType with that name; nothing for a name outside dtype_names() (callers word the error).
std::optional<DType> parse_dtype(std::string_view name);

}  // namespace geotrain
