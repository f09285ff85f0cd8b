#include <catch2/catch.hpp>

#include "sim/scenario/model_spec.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace model_spec_test {

using namespace geotrain;

TEST_CASE("GPT-3 XL arithmetic", "[model]") {
  const ModelSpec m = model_preset("gpt3-xl");
  CHECK(m.layers == 24);
  CHECK(m.d_model == 2048);
  // 12 d^2 + 13 d per layer; 24 layers + embeddings (50257 + 2048) x 2048 ~ 1.3B
  CHECK(params_per_layer(m) == 12.0 * 2048 * 2048 + 13.0 * 2048);
  CHECK(total_params(m) == Approx(1.3157e9).epsilon(1e-3));
  CHECK(gradient_params(m) == 1.3e9);
  CHECK(forward_flops_per_token_per_layer(m) == 24.0 * 2048 * 2048 + 4.0 * 2048 * 2048);
  // DT-FM's 61.04 sequences per task of fp16 activations
  CHECK(activation_bytes(m, 1e6 / 2048 / 8) == Approx(2048.0 * 2048 * 2 * 61.03515625));
}

TEST_CASE("presets are known by name", "[model]") {
  for (const auto& name : model_preset_names()) CHECK(model_preset(name).layers > 0);
  CHECK_THROWS_AS(model_preset("gpt5"), std::out_of_range);
}

}  // namespace model_spec_test
