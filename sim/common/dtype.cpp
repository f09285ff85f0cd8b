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

}  // namespace geotrain
