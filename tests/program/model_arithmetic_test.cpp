#include <catch2/catch.hpp>

#include "sim/workload/compute_ops.hpp"
#include "sim/scenario/model_spec.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace model_arithmetic_test {

using namespace geotrain;

TEST_CASE("GPT-3 XL has ~1.3e9 parameters and DT-FM's 0.65 GB stage gradient", "[program][model]") {
  const ModelSpec m = model_preset("gpt3-xl");
  CHECK(total_params(m) == Approx(1.3157e9).epsilon(1e-3));
  // 3 of 24 layers, 1.3e9 nominal parameters, fp32 gradients
  CHECK(stage_gradient_bytes(m, 0, 3) == Approx(0.65e9));
  CHECK(stage_gradient_bytes(m, 21, 24) == Approx(0.65e9));
  CHECK(stage_gradient_bytes(m, 0, 24) == Approx(5.2e9));
  ModelSpec exact = m;
  exact.nominal_params = 0;
  // Without the nominal size: exact counts, embeddings on stage 0, final norm + LM head on the
  // last.
  const double layer = params_per_layer(m);
  CHECK(stage_params(m, 3, 6) == 3 * layer);
  CHECK(stage_params(m, 0, 3) == 3 * layer + embedding_params(m));
  CHECK(stage_params(m, 21, 24) == 3 * layer + 2.0 * 2048 + 50257.0 * 2048);
  CHECK(stage_params(m, 0, 24) == total_params(m));  // one stage: the LM head stays tied
  CHECK(stage_gradient_bytes(exact, 3, 6) == 4 * 3 * layer);
}

TEST_CASE("forward flop per layer and per stage, backward is twice forward", "[program][model]") {
  const ModelSpec m = model_preset("gpt3-xl");
  const double d = 2048, s = 2048, v = 50257;
  CHECK(stage_forward_flops_per_sequence(m, 0, 3) == Approx(s * 3 * (24 * d * d + 4 * s * d)));
  CHECK(stage_forward_flops_per_sequence(m, 21, 24) ==
        Approx(s * (3 * (24 * d * d + 4 * s * d) + 2 * d * v)));
  const ComputeOp f = forward_op(m, 1, 2, 3, 6, 7.5);
  const ComputeOp b = backward_op(m, 1, 2, 3, 6, 7.5);
  CHECK(f.flops == Approx(7.5 * s * 3 * (24 * d * d + 4 * s * d)));
  CHECK(b.flops == Approx(2 * f.flops));
  CHECK(f.kind == ComputeKind::forward);
  CHECK(b.kind == ComputeKind::backward);
  CHECK(f.stage == 1);
  CHECK(f.micro_batch == 2);
  CHECK(f.memory_bytes == Approx(3 * params_per_layer(m) * 2));  // fp16 weights
  // Megatron-LM (Narayanan et al. 2021) per sequence, forward + backward without recompute:
  // 72 L s d^2 (1 + s / 6d + V / 12 L d)
  const double megatron = 72 * 24 * s * d * d * (1 + s / (6 * d) + v / (12 * 24 * d));
  CHECK(3 * stage_forward_flops_per_sequence(m, 0, 24) == Approx(megatron));
}

TEST_CASE("optimizer ops are sized per parameter", "[program][model]") {
  const ModelSpec m = model_preset("gpt-tiny");
  const ComputeOp adam = optimizer_op(m, Optimizer::adam, 0, 0, 4);
  CHECK(adam.kind == ComputeKind::optimizer);
  CHECK(adam.micro_batch == -1);
  CHECK(adam.memory_bytes == Approx(28 * total_params(m)));
  CHECK(adam.flops == Approx(12 * total_params(m)));
  CHECK(optimizer_op(m, Optimizer::sgd, 0, 0, 4).memory_bytes == Approx(12 * total_params(m)));
}

TEST_CASE("layers split evenly over stages", "[program][model]") {
  CHECK(split_layers(24, 8) ==
        std::vector<std::pair<int, int>>{
            {0, 3}, {3, 6}, {6, 9}, {9, 12}, {12, 15}, {15, 18}, {18, 21}, {21, 24}});
  CHECK(split_layers(10, 4) == std::vector<std::pair<int, int>>{{0, 3}, {3, 6}, {6, 8}, {8, 10}});
  CHECK(split_layers(4, 1) == std::vector<std::pair<int, int>>{{0, 4}});
}

TEST_CASE("activation bytes cross a boundary in the model dtype", "[program][model]") {
  const ModelSpec m = model_preset("gpt-tiny");  // fp32, seq 64, d 64
  CHECK(activation_bytes(m, 2) == 2.0 * 64 * 64 * 4);
  CHECK(activation_bytes(m, 0) == 0);
}

}  // namespace model_arithmetic_test
