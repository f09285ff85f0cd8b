#include "sim/scenario/model_spec.hpp"

#include <stdexcept>

namespace geotrain {

const std::vector<std::string>& model_preset_names() {
  static const std::vector<std::string> names{"gpt3-xl", "gpt3-small", "gpt2-small", "gpt-tiny",
                                              "gpt-mini"};
  return names;
}

ModelSpec model_preset(const std::string& name) {
  ModelSpec m;
  m.preset = name;
  if (name == "gpt3-xl") {  // GPT-3 XL, 1.3B (Brown et al. 2020; DT-FM's workload)
    m.layers = 24, m.d_model = 2048, m.heads = 16, m.seq_len = 2048, m.vocab = 50257;
    m.nominal_params = 1.3e9;
  } else if (name == "gpt3-small") {  // GPT-3 Small, 125M
    m.layers = 12, m.d_model = 768, m.heads = 12, m.seq_len = 2048, m.vocab = 50257;
  } else if (name == "gpt2-small") {  // GPT-2 small, 124M
    m.layers = 12, m.d_model = 768, m.heads = 12, m.seq_len = 1024, m.vocab = 50257;
  } else if (name == "gpt-mini") {  // ~10M parameters: a CPU emulation that still computes
    m.layers = 8, m.d_model = 256, m.heads = 8, m.seq_len = 128, m.vocab = 4096;
    m.dtype = DType::fp32;
  } else if (name == "gpt-tiny") {  // ~0.2M parameters: emulation tests in seconds
    m.layers = 4, m.d_model = 64, m.heads = 4, m.seq_len = 64, m.vocab = 256;
    m.dtype = DType::fp32;
  } else {
    throw std::out_of_range("unknown model preset " + name);
  }
  return m;
}

double params_per_layer(const ModelSpec& m) {
  const double d = m.d_model;
  // QKV + output projection (4 d^2 + 4 d), MLP with 4d hidden (8 d^2 + 5 d), two layer norms (4 d)
  return 12 * d * d + 13 * d;
}

double embedding_params(const ModelSpec& m) {
  return static_cast<double>(m.vocab) * m.d_model + static_cast<double>(m.seq_len) * m.d_model;
}

double total_params(const ModelSpec& m) {
  return m.layers * params_per_layer(m) + embedding_params(m) + 2.0 * m.d_model;  // final norm
}

double gradient_params(const ModelSpec& m) {
  return m.nominal_params > 0 ? m.nominal_params : total_params(m);
}

double forward_flops_per_token_per_layer(const ModelSpec& m) {
  const double d = m.d_model;
  return 24 * d * d + 4.0 * m.seq_len * d;
}

double lm_head_forward_flops_per_token(const ModelSpec& m) {
  return 2.0 * m.d_model * m.vocab;
}

double activation_bytes(const ModelSpec& m, double sequences) {
  return sequences * m.seq_len * m.d_model * static_cast<double>(dtype_bytes(m.dtype));
}

double stage_params(const ModelSpec& m, int layer_begin, int layer_end) {
  double p = (layer_end - layer_begin) * params_per_layer(m);
  if (layer_begin == 0) p += embedding_params(m);
  if (layer_end == m.layers) {
    p += 2.0 * m.d_model;  // final layer norm
    if (layer_begin > 0) p += static_cast<double>(m.vocab) * m.d_model;  // untied LM head copy
  }
  return p;
}

double stage_forward_flops_per_sequence(const ModelSpec& m, int layer_begin, int layer_end) {
  double per_token = (layer_end - layer_begin) * forward_flops_per_token_per_layer(m);
  if (layer_end == m.layers) per_token += lm_head_forward_flops_per_token(m);
  return per_token * m.seq_len;
}

double stage_gradient_bytes(const ModelSpec& m, int layer_begin, int layer_end) {
  const auto bytes = static_cast<double>(dtype_bytes(m.gradient_dtype));
  if (m.nominal_params > 0)
    return m.nominal_params * bytes * (layer_end - layer_begin) / static_cast<double>(m.layers);
  return stage_params(m, layer_begin, layer_end) * bytes;
}

std::vector<std::pair<int, int>> split_layers(int layers, int stages) {
  std::vector<std::pair<int, int>> out;
  int begin = 0;
  for (int s = 0; s < stages; ++s) {
    const int n = layers / stages + (s < layers % stages ? 1 : 0);
    out.emplace_back(begin, begin + n);
    begin += n;
  }
  return out;
}

}  // namespace geotrain
