#pragma once
// A GPT-style decoder as the scenario describes it, and the arithmetic every executor needs:
// parameters, FLOPs, activation and gradient bytes. Formulas follow Megatron-LM's accounting
// (Narayanan et al., SC'21): per layer 12 d^2 + 13 d parameters, forward 24 d^2 + 4 s d flop per
// token; backward = 2 x forward.
#include <string>
#include <utility>
#include <vector>

#include "sim/common/dtype.hpp"

namespace geotrain {

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

// --- a stage = the layer range [layer_begin, layer_end) of the decoder --------------------------
// Stage 0 (layer_begin == 0) also holds the token + position embeddings; the last stage
// (layer_end == layers) holds the final layer norm and the LM head. The LM head is tied to the
// embedding: it adds parameters only when the last stage is not also the first (a pipeline keeps
// a copy on the last stage, as Megatron and DT-FM do).
double stage_params(const ModelSpec& m, int layer_begin, int layer_end);
// Forward flop for one sequence through the stage (layers, plus the LM head on the last stage).
double stage_forward_flops_per_sequence(const ModelSpec& m, int layer_begin, int layer_end);
// Gradient bytes the stage sends in a data-parallel sync (gradient dtype). With nominal_params
// set this is DT-FM's rule nominal x bytes x (layers in stage / layers), which reproduces its
// 0.65 GB for 3 of GPT-3 XL's 24 layers; otherwise the exact stage_params x bytes.
double stage_gradient_bytes(const ModelSpec& m, int layer_begin, int layer_end);
// Even split of `layers` over `stages` (the first layers % stages stages get one more layer).
std::vector<std::pair<int, int>> split_layers(int layers, int stages);

}  // namespace geotrain
