#pragma once
// A pipeline stage's tensors per micro-batch between its Compute ops and its transfers:
// activations and their gradients, out (computed, waiting to be sent) and in (received, waiting
// to be used), and which Recv op brings a micro-batch's payload (waited on before its use).
#include <map>
#include <utility>

#include <torch/torch.h>

#include "sim/program/program.hpp"

namespace geotrain {

struct MicroBatchTensors {
  std::map<int, torch::Tensor> act_out, grad_out, act_in, grad_in;  // by micro-batch id
  std::map<std::pair<int, Payload>, int> recv_op;  // (micro-batch, payload) -> Recv op index
};

}  // namespace geotrain
