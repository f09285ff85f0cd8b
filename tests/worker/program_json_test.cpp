#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/common/error.hpp"
#include "sim/program/program_json.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace program_json_test {

using namespace geotrain;

namespace {

Op make_op(decltype(Op::body) body, const char* label, bool nonblocking = false) {
  Op op;
  op.body = std::move(body);
  op.label = label;
  op.nonblocking = nonblocking;
  return op;
}

// One op of every type with every field set to a non-default value.
Program every_op_program() {
  Program p;
  p.strategy = "mixed";
  p.world_size = 2;
  p.device_of_rank = {3, 1};
  p.groups = {{0, "world", {0, 1}}, {1, "dp stage 0", {1, 0}}};
  p.sequences_per_iteration = 8;
  p.tokens_per_iteration = 8 * 64;
  p.model_flops_per_iteration = 1.2345678901234567e12;
  ComputeOp fwd{ComputeKind::backward, 2, 5, 3, 7, 4.5, 1.0 / 3.0, 12345.25};
  CollectiveOp coll{CollectiveKind::reduce_scatter, 1, 4.0e6 + 0.5, CollectiveAlgorithm::halving_doubling, 1, 9};
  DynamicOp dyn;  // fields by name: the struct grows
  dyn.rule = PartialReduceRule{0.25, 0.125, 0.5, 4};
  dyn.bytes = 1e3;
  dyn.tag = 3;
  dyn.payload = Payload::pseudo_gradient;
  DynamicOp gossip;
  gossip.rule = GossipRule{18446744073709551615ull};
  gossip.bytes = 2e3;
  gossip.tag = 4;
  p.ranks = {{make_op(fwd, "bwd s2 mb5"), make_op(SendOp{1, 4096, 11, Payload::activation_grad, 5}, "send", true),
              make_op(coll, "bucket 3", true), make_op(WaitOp{{1, 2}}, "wait")},
             {make_op(RecvOp{0, 4096, 11, Payload::activation_grad, 5}, "recv"), make_op(dyn, "partial reduce"),
              make_op(gossip, "gossip"),
              make_op(ComputeOp{ComputeKind::optimizer, 0, -1, 0, 4, 0, 0, 0}, "optim")}};
  return p;
}

}  // namespace

TEST_CASE("program json round trip is lossless for every op type", "[worker][program_json]") {
  const Program p = every_op_program();
  const Program back = program_from_json(nlohmann::json::parse(program_to_json(p).dump()));
  CHECK(programs_equal(p, back));
  const auto& c = std::get<ComputeOp>(back.ranks[0][0].body);
  CHECK(c.kind == ComputeKind::backward);
  CHECK(c.flops == 1.0 / 3.0);  // full double precision survives
  CHECK(back.ranks[0][1].nonblocking);
  CHECK(std::get<GossipRule>(std::get<DynamicOp>(back.ranks[1][2].body).rule).seed ==
        18446744073709551615ull);
  CHECK(std::get<PartialReduceRule>(std::get<DynamicOp>(back.ranks[1][1].body).rule).window_max_s ==
        0.5);
  CHECK(std::get<CollectiveOp>(back.ranks[0][2].body).algorithm ==
        CollectiveAlgorithm::halving_doubling);
  CHECK(std::get<WaitOp>(back.ranks[0][3].body).ops == std::vector<int>{1, 2});
  CHECK(back.groups[1].ranks == std::vector<int>{1, 0});
}

TEST_CASE("program json files round trip", "[worker][program_json]") {
  const Program p = every_op_program();
  const std::string path = "program_json_test.json";
  write_program_json(p, path);
  CHECK(programs_equal(p, read_program_json(path)));
  std::remove(path.c_str());
}

TEST_CASE("program json errors name the path, value and expectation", "[worker][program_json]") {
  auto j = program_to_json(every_op_program());
  j["ranks"][0][2]["algorithm"] = "hypercube";
  j["ranks"][1][0].erase("peer");
  j["ranks"][0][1]["op"] = "teleport";
  try {
    program_from_json(j, "p.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const auto& pr = e.problems();
    REQUIRE(pr.size() == 3);
    CHECK(pr[0] ==
          "p.json: $.ranks[0][1].op: 'teleport' unknown (known: compute, send, recv, collective, "
          "dynamic, wait)");
    CHECK(pr[1] ==
          "p.json: $.ranks[0][2].algorithm: 'hypercube' unknown (known: ring, tree, "
          "halving_doubling, direct, library, butterfly)");
    CHECK(pr[2] == "p.json: $.ranks[1][0].peer: missing");
  }
  CHECK_THROWS_AS(read_program_json("/nonexistent/program.json"), InputError);
}

TEST_CASE("a Program's outer step and emulation refusal survive the JSON round trip",
          "[worker][program_json]") {
  Program p = every_op_program();
  CHECK_FALSE(program_to_json(p).contains("outer_step"));  // absent unless set: old files unchanged
  p.outer_step = OuterStep{0.5, 0.25, DType::bf16};
  p.not_emulated = "a reason";
  const Program back = program_from_json(nlohmann::json::parse(program_to_json(p).dump()));
  REQUIRE(back.outer_step);
  CHECK(back.outer_step->learning_rate == 0.5);
  CHECK(back.outer_step->momentum == 0.25);
  CHECK(back.outer_step->wire_dtype == DType::bf16);
  CHECK(back.not_emulated == "a reason");
  CHECK_FALSE(back.outer_step->fragmented);
  CHECK_FALSE(program_to_json(p)["outer_step"].contains("fragmented"));  // DiLoCo's files unchanged
  auto j = program_to_json(p);
  j["outer_step"]["wire_dtype"] = "int4";
  CHECK_THROWS_WITH(program_from_json(j, "p.json"),
                    Catch::Contains("$.outer_step.wire_dtype: 'int4' (expected fp32, fp16 or bf16)"));
  // Streaming DiLoCo's per-fragment outer state and its merge's mixing.
  p.outer_step->fragmented = true;
  p.outer_step->mixing = 0.25;
  const Program streaming = program_from_json(nlohmann::json::parse(program_to_json(p).dump()));
  CHECK(streaming.outer_step->fragmented);
  CHECK(streaming.outer_step->mixing == 0.25);
  j = program_to_json(p);
  j["outer_step"]["mixing"] = 1.5;
  CHECK_THROWS_WITH(program_from_json(j, "p.json"), Catch::Contains("$.outer_step.mixing: 1.5 (expected 0 ... 1)"));
}

TEST_CASE("a Dynamic op carries its own rule's fields, an unknown rule is named",
          "[worker][program_json]") {
  auto j = program_to_json(every_op_program());
  const auto& preduce = j["ranks"][1][1];
  CHECK(preduce["rule"] == "partial_reduce");
  CHECK(preduce.contains("window_s"));
  CHECK_FALSE(preduce.contains("seed"));
  CHECK(j["ranks"][1][2]["rule"] == "gossip");
  CHECK_FALSE(j["ranks"][1][2].contains("window_s"));
  j["ranks"][1][1]["rule"] = "flood";
  j["ranks"][1][2].erase("seed");
  try {
    program_from_json(j, "p.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const auto& pr = e.problems();
    REQUIRE(pr.size() == 2);
    CHECK(pr[0] == "p.json: $.ranks[1][1].rule: 'flood' unknown (known: partial_reduce, gossip)");
    CHECK(pr[1] == "p.json: $.ranks[1][2].seed: missing");
  }
}

TEST_CASE("every op that moves data carries its payload, and an unknown one is named",
          "[worker][program_json]") {
  Program p = every_op_program();
  std::get<CollectiveOp>(p.ranks[0][2].body).payload = Payload::weights;
  const Program back = program_from_json(nlohmann::json::parse(program_to_json(p).dump()));
  const auto& send = std::get<SendOp>(back.ranks[0][1].body);
  CHECK(send.payload == Payload::activation_grad);
  CHECK(send.micro_batch == 5);
  CHECK(std::get<RecvOp>(back.ranks[1][0].body).payload == Payload::activation_grad);
  CHECK(std::get<CollectiveOp>(back.ranks[0][2].body).payload == Payload::weights);
  CHECK(std::get<DynamicOp>(back.ranks[1][1].body).payload == Payload::pseudo_gradient);
  CHECK(std::get<DynamicOp>(back.ranks[1][2].body).payload == Payload::weights);
  auto j = program_to_json(p);
  j["ranks"][0][1]["payload"] = "optimizer_state";
  j["ranks"][1][0].erase("micro_batch");
  try {
    program_from_json(j, "p.json");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const auto& pr = e.problems();
    REQUIRE(pr.size() == 2);
    CHECK(pr[0] == "p.json: $.ranks[0][1].payload: 'optimizer_state' unknown (known: activation, "
                   "activation_grad, gradients, weights, pseudo_gradient, state)");
    CHECK(pr[1] == "p.json: $.ranks[1][0].micro_batch: missing");
  }
}

}  // namespace program_json_test
