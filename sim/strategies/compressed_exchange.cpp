#include "sim/strategies/compressed_exchange.hpp"

#include <fmt/format.h>

#include "sim/program/compression.hpp"
#include "sim/scenario/yaml_section.hpp"
#include "sim/strategies/strategy_builders.hpp"

namespace geotrain {

namespace {

constexpr double kDefaultDensity = 0.03;

bool quantizes(CompressionKind k) { return k == CompressionKind::int8 || k == CompressionKind::fp4; }

// A field the kind does not use is a mistake worth naming (a density on int8 does nothing).
void unused_field(YamlSection& z, const std::string& key, const std::string& kind, const char* users) {
  if (!z.has(key)) return;
  const auto node = z.raw(key);
  z.diag().error(z.line_of(key), z.key_path(key), scalar_text(node),
                 fmt::format("only kind {} uses it (kind is {})", users, kind));
}

void read_compression(YamlSection& z, std::map<std::string, ParamValue>& params) {
  std::string name = "none";
  if (auto v = z.choice("kind", compression_kind_names(), "compression kind")) name = *v;
  const CompressionKind kind = *parse_compression_kind(name);
  std::int64_t block = default_block(kind);
  double density = kind == CompressionKind::topk ? kDefaultDensity : 0;
  bool error_feedback = kind == CompressionKind::topk;
  if (quantizes(kind)) {
    if (auto v = z.integer("block", 1, 1 << 20)) block = *v;
  } else {
    unused_field(z, "block", name, "int8 or fp4");
  }
  if (kind == CompressionKind::topk) {
    if (auto v = z.number("density", 1e-6, 1)) density = *v;
    if (auto v = z.boolean("error_feedback")) error_feedback = *v;
  } else {
    unused_field(z, "density", name, "topk");
    unused_field(z, "error_feedback", name, "topk");
  }
  params["compression.kind"] = name;
  params["compression.block"] = block;
  params["compression.density"] = density;
  params["compression.error_feedback"] = error_feedback;
  z.finish();
}

// The codec ops' work, as the worker does it (emu/worker/compressed_exchange.hpp), per element
// of the buffer (e elements of b bytes, n members, k kept by top-k, w wire bytes in all):
//  int8/fp4 encode: an fp32 working copy of the buffer (read b, write 4) and the quantization of
//    the first chunk sent (absmax, divide, round: 3 flop; read 4, write 1 per element of e / n);
//  int8/fp4 decode: dequantize every final chunk and divide by n (2 flop), read w, write the
//    fp32 result and the buffer (4 + b);
//  topk encode: add the residual (1 flop), select (1 comparison counted as a flop), zero what
//    was sent; read buffer and residual, write the sum and an index per element (b + 12);
//  topk decode: zero, add n x k pairs, divide by n: e + n k flop; write 4 + b, read the pairs.
struct CodecCost {
  double encode_flops = 0, encode_bytes = 0, decode_flops = 0, decode_bytes = 0;
};

CodecCost codec_cost(const CollectiveOp& c, int n) {
  const auto& z = c.compression;
  const double e = static_cast<double>(compressed_elements(c)), b = z.element_bytes;
  CodecCost cost;
  if (z.kind == CompressionKind::topk) {
    const double k = static_cast<double>(topk_count(z.density, compressed_elements(c)));
    cost.encode_flops = 2 * e;
    cost.encode_bytes = e * (b + 12) + k * static_cast<double>(kTopkPairBytes);
    cost.decode_flops = e + n * k;
    cost.decode_bytes = e * (4 + b) + n * k * static_cast<double>(kTopkPairBytes);
    return cost;
  }
  const double wire = wire_equivalent(c, n).bytes;
  cost.encode_flops = 3 * e / n;
  cost.encode_bytes = e * (b + 4) + 5 * e / n;
  cost.decode_flops = 2 * e;
  cost.decode_bytes = wire + e * (4 + b);
  return cost;
}

Op codec_op(double flops, double bytes, int layers, std::string label) {
  ComputeOp op;
  op.kind = ComputeKind::other;
  op.micro_batch = -1;
  op.layer_end = layers;
  op.flops = flops;
  op.memory_bytes = bytes;
  return make_op(op, std::move(label));
}

}  // namespace

ParamDecl compression_param() {
  return map_param("compression", read_compression,
                   "compressed exchange: {kind: none | int8 | fp4 | topk, block, density, "
                   "error_feedback} (docs/compression.md)");
}

Compression scenario_compression(const Scenario& s, int element_bytes) {
  Compression z;
  z.kind = *parse_compression_kind(s.strategy.text("compression.kind"));
  z.block = static_cast<int>(s.strategy.integer("compression.block"));
  z.density = s.strategy.number("compression.density");
  z.error_feedback = s.strategy.flag("compression.error_feedback");
  z.element_bytes = element_bytes;
  return z;
}

void compression_check(const Scenario& s, Diagnostics& diag, int line, bool averages_weights) {
  const std::string& kind = s.strategy.text("compression.kind");
  if (kind == "none") return;
  if (s.strategy.text("algorithm") != "ring")
    diag.error(line, "strategy.algorithm", s.strategy.text("algorithm"),
               fmt::format("compression {} runs as a ring all-reduce (expected ring)", kind));
  if (s.strategy.params.count("averaging") && s.strategy.text("averaging") != "wait-for-all")
    diag.error(line, "strategy.averaging", s.strategy.text("averaging"),
               fmt::format("compression {} needs one all-reduce of everyone (expected wait-for-all)", kind));
  if (averages_weights && kind == "topk")
    diag.error(line, "strategy.compression.kind", kind,
               fmt::format("{} averages weights, and a sum of top-k weights is no average (expected "
                           "none, int8 or fp4)", s.strategy.name));
  if (s.emulation.collectives == "gloo")
    diag.error(line, "emulation.collectives", "gloo",
               fmt::format("compression {} needs the Program's own send/recv ring (expected p2p or nccl)", kind));
}

namespace {

// The codec ops of compressed collective `c` (kind not none) over `n` members.
Op encoder_op(const CollectiveOp& c, int n, int layers) {
  const CodecCost cost = codec_cost(c, n);
  return codec_op(cost.encode_flops, cost.encode_bytes, layers, fmt::format("compress {}", to_string(c.compression.kind)));
}

Op decoder_op(const CollectiveOp& c, int n, int layers) {
  const CodecCost cost = codec_cost(c, n);
  return codec_op(cost.decode_flops, cost.decode_bytes, layers, fmt::format("decompress {}", to_string(c.compression.kind)));
}

}  // namespace

void add_exchange(std::vector<Op>& ops, const CollectiveOp& c, std::string label, int n, int layers) {
  const bool compressed = c.compression.kind != CompressionKind::none;
  if (compressed) ops.push_back(encoder_op(c, n, layers));
  ops.push_back(make_op(c, std::move(label)));
  if (compressed) ops.push_back(decoder_op(c, n, layers));
}

int start_exchange(std::vector<Op>& ops, const CollectiveOp& c, std::string label, int n, int layers) {
  if (c.compression.kind != CompressionKind::none) ops.push_back(encoder_op(c, n, layers));
  ops.push_back(make_op(c, std::move(label), true));
  return static_cast<int>(ops.size()) - 1;
}

void finish_exchange(std::vector<Op>& ops, int collective, std::string wait_label, int n, int layers) {
  const CollectiveOp c = *ops.at(static_cast<std::size_t>(collective)).as<CollectiveOp>();
  ops.push_back(make_wait({collective}, std::move(wait_label)));
  if (c.compression.kind != CompressionKind::none) ops.push_back(decoder_op(c, n, layers));
}

}  // namespace geotrain
