#pragma once
// A GPT-style decoder as the scenario describes it, and the arithmetic every executor needs:
// parameters, FLOPs, activation and gradient bytes. Formulas follow Megatron-LM's accounting
// (Narayanan et al., SC'21): per layer 12 d^2 + 13 d parameters, forward 24 d^2 + 4 s d flop per
// token; backward = 2 x forward.
#include <string>
#include <vector>

namespace geotrain {

enum class DType { fp32, fp16, bf16 };

std::size_t dtype_bytes(DType t);
const char* dtype_name(DType t);

struct ModelSpec {
  std::string preset;  // name of the preset it came from, or "custom"
  int layers = 0;
  int d_model = 0;
  int heads = 0;
  int seq_len = 0;
  int vocab = 0;
  DType dtype = DType::fp16;           // activations and compute
  DType gradient_dtype = DType::fp32;  // gradients on the wire (DT-FM sends fp32)
  // Some papers quote a rounded size (GPT-3 XL "1.3B"); when set, gradient sizes use it so the
  // scheduler reproduces the paper's figures. 0 = use the exact count.
  double nominal_params = 0;
};

// Names of the built-in presets and the preset itself (throws std::out_of_range if unknown).
const std::vector<std::string>& model_preset_names();
ModelSpec model_preset(const std::string& name);

// --- arithmetic (all exact counts unless noted) -----------------------------------------------
double params_per_layer(const ModelSpec& m);
double embedding_params(const ModelSpec& m);  // token + position embeddings (LM head tied)
double total_params(const ModelSpec& m);
// The parameter count gradient sizes use: nominal when the spec has one.
double gradient_params(const ModelSpec& m);
double forward_flops_per_token_per_layer(const ModelSpec& m);
double lm_head_forward_flops_per_token(const ModelSpec& m);
// Bytes crossing a pipeline boundary for `sequences` sequences (activations, model dtype).
double activation_bytes(const ModelSpec& m, double sequences);

}  // namespace geotrain
