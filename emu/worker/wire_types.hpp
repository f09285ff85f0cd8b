#pragma once
// The dtypes tensors travel in: the job's dtypes as LibTorch scalar types, and which dtype a
// payload moves in (the Program names the payload; the job names the dtypes).
#include <torch/torch.h>

#include "emu/worker/worker_job.hpp"

namespace geotrain {

inline torch::ScalarType scalar_type(DType t) {
  return t == DType::fp32 ? torch::kFloat32 : t == DType::fp16 ? torch::kFloat16 : torch::kBFloat16;
}

// The pseudo-gradient travels in OuterStep's dtype; gradients and weights in the gradient dtype.
inline DType wire_dtype(const WorkerJob& job, Payload p) {
  return p == Payload::pseudo_gradient ? job.wire_dtype : job.model.gradient_dtype;
}

}  // namespace geotrain
