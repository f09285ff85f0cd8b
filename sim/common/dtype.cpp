#include "sim/common/dtype.hpp"

namespace geotrain {

std::size_t dtype_bytes(DType t) { return t == DType::fp32 ? 4 : 2; }

const char* dtype_name(DType t) {
  switch (t) {
    case DType::fp32:
      return "fp32";
    case DType::fp16:
      return "fp16";
    case DType::bf16:
      return "bf16";
  }
  return "?";
}

const std::vector<std::string>& dtype_names() {
  static const std::vector<std::string> names{dtype_name(DType::fp32), dtype_name(DType::fp16),
                                              dtype_name(DType::bf16)};
  return names;
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (auto t : {DType::fp32, DType::fp16, DType::bf16})
    if (name == dtype_name(t)) return t;
  return std::nullopt;
}

}  // namespace geotrain
