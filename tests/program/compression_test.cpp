// Compressed exchanges (sim/program/compression.hpp, compression_codec.hpp and
// sim/strategies/compressed_exchange.hpp): the wire bytes in closed form for every kind, the
// codecs' error bounds, top-k with error feedback, the Program JSON round trip, validation, and
// the ops the strategies write.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/program/compression.hpp"
#include "sim/program/compression_codec.hpp"
#include "sim/program/program_json.hpp"
#include "sim/program/program_validation.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/compute_profile.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compression_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

CollectiveOp compressed_op(CompressionKind kind, double elements, int block = 0, double density = 0) {
  CollectiveOp c;
  c.bytes = 4 * elements;
  c.compression = {kind, block, density, kind == CompressionKind::topk, 4};
  return c;
}

std::vector<float> random_values(std::size_t n, unsigned seed, float spread = 3.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, spread);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

float scale_of(const std::vector<std::uint8_t>& q, std::size_t codes, std::size_t block) {
  float s;
  std::memcpy(&s, q.data() + codes + kScaleBytes * block, 4);
  return s;
}

}  // namespace

TEST_CASE("compressed bytes: per-chunk codes plus fp32 scales, and top-k pairs, in closed form",
          "[program][compression]") {
  // int8: one byte per element, 4 B per block of 64 (ceil).
  CHECK(quantized_bytes(CompressionKind::int8, 64, 1000) == 1000 + 4 * 16);
  CHECK(quantized_bytes(CompressionKind::int8, 64, 64) == 64 + 4);
  // fp4: two elements per byte (ceil), 4 B per block of 32.
  CHECK(quantized_bytes(CompressionKind::fp4, 32, 1000) == 500 + 4 * 32);
  CHECK(quantized_bytes(CompressionKind::fp4, 32, 33) == 17 + 4 * 2);
  CHECK(quantized_bytes(CompressionKind::int8, 64, 0) == 0);
  // top-k: ceil(density x elements) pairs of 8 B, at least one.
  CHECK(topk_count(0.03, 1000) == 30);
  CHECK(topk_count(0.0301, 1000) == 31);
  CHECK(topk_count(1e-6, 10) == 1);
  CHECK(topk_message_bytes(compressed_op(CompressionKind::topk, 1000, 0, 0.03).compression, 1000) == 240);

  // A ring of n: each member sends n - 1 quantized chunks in the reduce-scatter and n - 1 in the
  // all-gather; with equal chunks that is 2 (n - 1) x quantized_bytes(E / n).
  for (auto kind : {CompressionKind::int8, CompressionKind::fp4}) {
    const int block = default_block(kind);
    const auto op = compressed_op(kind, 4 * 6400, block);
    for (int p = 0; p < 4; ++p)
      CHECK(compressed_bytes_sent(op, 4, p) == 2.0 * 3 * static_cast<double>(quantized_bytes(kind, block, 6400)));
    CHECK(wire_equivalent(op, 4).bytes == 4.0 * static_cast<double>(quantized_bytes(kind, block, 6400)));
  }
  // Unequal chunks (1001 elements over 3: 333, 334, 334): member p sends chunks p - 1 and p - 2
  // in the reduce-scatter, p and p - 1 in the all-gather.
  const auto odd = compressed_op(CompressionKind::int8, 1001, 64);
  const double q333 = static_cast<double>(quantized_bytes(CompressionKind::int8, 64, 333));
  const double q334 = static_cast<double>(quantized_bytes(CompressionKind::int8, 64, 334));
  CHECK(compressed_bytes_sent(odd, 3, 0) == q334 + q334 + q333 + q334);
  CHECK(compressed_bytes_sent(odd, 3, 1) == q333 + q334 + q334 + q333);
  // Top-k: a ring all-gather of n equal messages: (n - 1) messages each.
  const auto topk = compressed_op(CompressionKind::topk, 1000, 0, 0.03);
  for (int p = 0; p < 3; ++p) CHECK(compressed_bytes_sent(topk, 3, p) == 2 * 240.0);
  const auto steps = compressed_schedule(topk, 3, 0);
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].sends[0].count == 240);
  // None, or anything but a ring all-reduce, has no compressed schedule.
  CHECK_THROWS_AS(compressed_schedule(compressed_op(CompressionKind::none, 10), 2, 0), InputError);
  auto tree = odd;
  tree.algorithm = CollectiveAlgorithm::tree;
  CHECK_THROWS_AS(compressed_schedule(tree, 3, 0), InputError);
}

TEST_CASE("int8 round trip: every element within half its block's scale", "[program][compression]") {
  const auto x = random_values(1000, 7);
  const int block = 64;
  std::vector<std::uint8_t> q(quantized_bytes(CompressionKind::int8, block, x.size()));
  quantize_chunk(CompressionKind::int8, block, x, q);
  std::vector<float> y(x.size());
  dequantize_chunk(CompressionKind::int8, block, q, y);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float scale = scale_of(q, x.size(), i / block);
    INFO(i);
    CHECK(std::fabs(x[i] - y[i]) <= scale / 2 * (1 + 1e-6f));
  }
  // The block's largest |x| is exact (code +-127), an all-zero block stays zero.
  std::vector<float> zeros(70, 0.0f);
  std::vector<std::uint8_t> qz(quantized_bytes(CompressionKind::int8, block, zeros.size()));
  quantize_chunk(CompressionKind::int8, block, zeros, qz);
  std::vector<float> back(zeros.size(), 1.0f);
  dequantize_chunk(CompressionKind::int8, block, qz, back);
  CHECK(std::all_of(back.begin(), back.end(), [](float v) { return v == 0.0f; }));
  // dequantize_add adds.
  std::vector<float> sum(x.size(), 1.0f);
  dequantize_add_chunk(CompressionKind::int8, block, q, sum);
  for (std::size_t i = 0; i < x.size(); ++i) CHECK(sum[i] == Approx(1.0f + y[i]));
}

TEST_CASE("fp4 round trip: every element on the e2m1 grid point nearest it", "[program][compression]") {
  const auto x = random_values(999, 11);
  const int block = 32;
  std::vector<std::uint8_t> q(quantized_bytes(CompressionKind::fp4, block, x.size()));
  quantize_chunk(CompressionKind::fp4, block, x, q);
  std::vector<float> y(x.size());
  dequantize_chunk(CompressionKind::fp4, block, q, y);
  const std::size_t codes = (x.size() + 1) / 2;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float scale = scale_of(q, codes, i / block);
    REQUIRE(scale > 0);
    const float v = x[i] / scale;
    float nearest = 1e30f;
    for (float g : fp4_grid()) nearest = std::min(nearest, std::fabs(std::fabs(v) - g));
    INFO(i << " x " << x[i] << " y " << y[i] << " scale " << scale);
    CHECK(std::fabs(std::fabs(y[i] / scale) - std::fabs(v)) <= nearest + 1e-5f);
    CHECK((y[i] == 0 || (y[i] < 0) == (x[i] < 0)));
    // The grid's widest gap is 4 to 6: at most one scale off.
    CHECK(std::fabs(x[i] - y[i]) <= scale * (1 + 1e-5f));
  }
}

TEST_CASE("top-k sends the k largest magnitudes and error feedback keeps the rest", "[program][compression]") {
  std::vector<float> acc{0.1f, -5.0f, 0.3f, 4.0f, -0.2f, 2.5f, 0.0f, -3.0f};
  const auto original = acc;
  std::vector<std::uint8_t> message(3 * kTopkPairBytes);
  select_topk(acc, message);
  // Kept: -5 (1), 4 (3), -3 (7), in index order; the residual is everything else.
  std::vector<float> sent(acc.size(), 0.0f);
  add_topk(message, sent);
  CHECK(sent == std::vector<float>{0, -5.0f, 0, 4.0f, 0, 0, 0, -3.0f});
  CHECK(acc == std::vector<float>{0.1f, 0, 0.3f, 0, -0.2f, 2.5f, 0.0f, 0});
  for (std::size_t i = 0; i < acc.size(); ++i) CHECK(sent[i] + acc[i] == original[i]);
  // Next round, the residual joins the new values: 2.5 left over now wins.
  std::vector<float> next{0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f, 0.1f};
  for (std::size_t i = 0; i < next.size(); ++i) next[i] += acc[i];
  std::vector<std::uint8_t> m1(kTopkPairBytes);
  select_topk(next, m1);
  std::vector<float> got(next.size(), 0.0f);
  add_topk(m1, got);
  CHECK(got[5] == Approx(2.6f));
}

TEST_CASE("a compressed collective survives the Program JSON round trip and is validated",
          "[program][compression]") {
  const Scenario s = test::scenario_with(3, "{name: ddp-allreduce, compression: {kind: fp4, block: 16}}", "gpt-tiny",
                                         "training: {global_batch: 6}\n");
  const Program p = build_program(s);
  const auto labels = test::labels(p, 1);
  const auto at = std::find(labels.begin(), labels.end(), "allreduce dp s0");
  REQUIRE(at != labels.end());
  CHECK(*(at - 1) == "compress fp4");
  CHECK(*(at + 1) == "decompress fp4");
  const auto* c = p.ranks[1][static_cast<std::size_t>(at - labels.begin())].as<CollectiveOp>();
  REQUIRE(c);
  CHECK(c->compression == Compression{CompressionKind::fp4, 16, 0, false, 4});
  CHECK(programs_equal(program_from_json(program_to_json(p)), p));
  CHECK(program_to_json(p)["ranks"][1][at - labels.begin()]["compression"]["kind"] == "fp4");

  // Without its codec ops, nonblocking, or on a tree it is refused.
  Program broken = p;
  auto& ops = broken.ranks[1];
  ops.erase(ops.begin() + (at - labels.begin()) + 1);
  CHECK_THAT(test::joined(program_problems(broken)), Contains("needs its codec ops right before and after it"));
  Program tree = p;
  for (auto& rank : tree.ranks)
    for (auto& op : rank)
      if (auto* col = std::get_if<CollectiveOp>(&op.body)) col->algorithm = CollectiveAlgorithm::tree;
  CHECK_THAT(test::joined(program_problems(tree)), Contains("(expected a ring all-reduce)"));
  // Nonblocking with its decoder right after it (not after a Wait for it): refused.
  Program early = p;
  early.ranks[1][static_cast<std::size_t>(at - labels.begin())].nonblocking = true;
  CHECK_THAT(test::joined(program_problems(early)), Contains("its decoder right after a Wait for it alone"));
}

// Streaming DiLoCo's exchanges overlap inner steps: encoder, nonblocking collective, ... Wait,
// decoder. The codec roles are found from those positions, for each fragment.
TEST_CASE("streaming-diloco compresses each fragment: encoder before, decoder after the Wait",
          "[program][compression][streaming]") {
  const Scenario s = test::scenario_with(
      4, "{name: streaming-diloco, inner_steps: 4, fragments: 2, overlap_steps: 1, compression: {kind: fp4}}",
      "gpt-tiny", "training: {global_batch: 8}\n");
  const Program p = build_program(s);
  CHECK(program_problems(p).empty());
  const auto& ops = p.ranks[2];
  int exchanges = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto* c = ops[i].as<CollectiveOp>();
    if (!c) continue;
    ++exchanges;
    INFO(ops[i].label);
    CHECK(ops[i].nonblocking);
    CHECK(c->compression.kind == CompressionKind::fp4);
    CHECK(codec_role(ops, i - 1) == CodecRole::encode);
    CHECK(codec_collective(ops, i - 1) == i);
    const std::size_t w = wait_of(ops, i);
    REQUIRE(w < ops.size());
    CHECK(w > i + 1);  // an inner step's ops between: the exchange overlaps them
    CHECK(codec_role(ops, w + 1) == CodecRole::decode);
    CHECK(codec_collective(ops, w + 1) == i);
    CHECK(ops[w + 1].label == "decompress fp4");
  }
  CHECK(exchanges == 2);
}

TEST_CASE("the strategies write one compressed exchange with its codec ops", "[program][compression]") {
  for (const std::string name : {"ddp-allreduce", "diloco", "local-sgd"}) {
    for (const std::string kind : {"int8", "fp4", "topk"}) {
      if (name == "local-sgd" && kind == "topk") continue;  // refused: weights
      INFO(name << " " << kind);
      const Scenario s = test::scenario_with(
          4, "{name: " + name + ", compression: {kind: " + kind + "}}", "gpt-tiny", "training: {global_batch: 8}\n");
      const Program p = build_program(s);
      CHECK(program_problems(p).empty());
      int compressed = 0;
      for (const auto& op : p.ranks[2])
        if (const auto* c = op.as<CollectiveOp>()) {
          ++compressed;
          CHECK(to_string(c->compression.kind) == kind);
          CHECK(c->compression.block == (kind == "int8" ? 64 : kind == "fp4" ? 32 : 0));
          CHECK(c->compression.density == (kind == "topk" ? 0.03 : 0));
          CHECK(c->compression.error_feedback == (kind == "topk"));
        }
      CHECK(compressed == 1);
      const auto labels = test::labels(p, 2);
      CHECK(std::count(labels.begin(), labels.end(), "compress " + kind) == 1);
      CHECK(std::count(labels.begin(), labels.end(), "decompress " + kind) == 1);
    }
  }
  // Kind none (the default) writes the collective alone.
  const Program plain = build_program(test::scenario_with(2, "{name: ddp-allreduce}", "gpt-tiny"));
  for (const auto& label : test::labels(plain, 0)) CHECK(label.find("compress") == std::string::npos);
}

TEST_CASE("a measured profile keeps the encoder and the decoder apart", "[program][compression]") {
  // Both are kind other over the whole model; their flops tell them apart (compute_profile.hpp).
  const Program p = build_program(test::scenario_with(3, "{name: ddp-allreduce, compression: {kind: int8}}",
                                                      "gpt-tiny", "training: {global_batch: 6}\n"));
  std::vector<ProfileSample> samples;
  for (const auto& op : p.ranks[0])
    if (const auto* c = op.as<ComputeOp>(); c && c->kind == ComputeKind::other)
      samples.push_back({*c, op.label == "compress int8" ? 0.001 : 0.004, std::nan(""), {}});
  REQUIRE(samples.size() == 2);
  const auto entries = summarize_samples(samples);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].median_s == 0.001);
  CHECK(entries[1].median_s == 0.004);
}

}  // namespace compression_test
