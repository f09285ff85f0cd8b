#include "sim/program/compression.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/common/error.hpp"

namespace geotrain {

const char* to_string(CompressionKind k) {
  switch (k) {
    case CompressionKind::none: return "none";
    case CompressionKind::int8: return "int8";
    case CompressionKind::fp4: return "fp4";
    case CompressionKind::topk: return "topk";
  }
  return "?";
}

const std::vector<std::string>& compression_kind_names() {
  static const std::vector<std::string> names{"none", "int8", "fp4", "topk"};
  return names;
}

std::optional<CompressionKind> parse_compression_kind(const std::string& name) {
  for (auto k : {CompressionKind::none, CompressionKind::int8, CompressionKind::fp4, CompressionKind::topk})
    if (name == to_string(k)) return k;
  return std::nullopt;
}

int default_block(CompressionKind k) {
  return k == CompressionKind::int8 ? 64 : k == CompressionKind::fp4 ? 32 : 0;
}

std::size_t compressed_elements(const CollectiveOp& op) {
  return static_cast<std::size_t>(std::llround(op.bytes / std::max(op.compression.element_bytes, 1)));
}

std::size_t block_count(std::size_t elements, int block) {
  const auto b = static_cast<std::size_t>(std::max(block, 1));
  return (elements + b - 1) / b;
}

std::size_t quantized_bytes(CompressionKind kind, int block, std::size_t elements) {
  const std::size_t codes = kind == CompressionKind::fp4 ? (elements + 1) / 2 : elements;
  return codes + kScaleBytes * block_count(elements, block);
}

std::size_t topk_count(double density, std::size_t elements) {
  if (elements == 0) return 0;
  const auto k = static_cast<std::size_t>(std::ceil(density * static_cast<double>(elements)));
  return std::clamp<std::size_t>(k, 1, elements);
}

std::size_t topk_message_bytes(const Compression& c, std::size_t elements) {
  return kTopkPairBytes * topk_count(c.density, elements);
}

std::vector<CollectiveStep> compressed_schedule(const CollectiveOp& op, int n, int p) {
  const auto& c = op.compression;
  if (c.kind == CompressionKind::none || op.kind != CollectiveKind::allreduce ||
      op.algorithm != CollectiveAlgorithm::ring)
    throw InputError(fmt::format("compression {} of a {} with algorithm {}: compressed exchanges run "
                                 "as a ring all-reduce", to_string(c.kind), to_string(op.kind),
                                 to_string(op.algorithm)));
  const std::size_t elements = compressed_elements(op);
  if (c.kind == CompressionKind::topk) {
    // The all-gather's chunks are the members' messages, all of one size.
    const std::size_t message = topk_message_bytes(c, elements);
    return collective_schedule(CollectiveKind::allgather, CollectiveAlgorithm::ring, n, p, 0,
                               message * static_cast<std::size_t>(n));
  }
  auto steps = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::ring, n, p, 0, elements);
  for (auto& step : steps) {
    for (auto& t : step.sends) t.count = quantized_bytes(c.kind, c.block, t.count);
    for (auto& t : step.recvs) t.count = quantized_bytes(c.kind, c.block, t.count);
  }
  return steps;
}

CollectiveOp wire_equivalent(const CollectiveOp& op, int n) {
  CollectiveOp out = op;
  out.compression = {};
  const std::size_t elements = compressed_elements(op);
  if (op.compression.kind == CompressionKind::topk) {
    out.kind = CollectiveKind::allgather;
    out.bytes = static_cast<double>(topk_message_bytes(op.compression, elements)) * n;
    return out;
  }
  double bytes = 0;
  for (int q = 0; q < n; ++q)
    bytes += static_cast<double>(
        quantized_bytes(op.compression.kind, op.compression.block, chunk_range(elements, n, q).count));
  out.bytes = bytes;
  return out;
}

namespace {
bool compressed_collective_at(const std::vector<Op>& ops, std::size_t j) {
  const auto* c = j < ops.size() ? ops[j].as<CollectiveOp>() : nullptr;
  return c && c->compression.kind != CompressionKind::none;
}
}  // namespace

namespace {

// The nonblocking compressed collective the Wait at `w` completes alone, or ops.size().
std::size_t waited_collective(const std::vector<Op>& ops, std::size_t w) {
  const auto* wait = w < ops.size() ? ops[w].as<WaitOp>() : nullptr;
  if (!wait || wait->ops.size() != 1) return ops.size();
  const auto j = static_cast<std::size_t>(wait->ops.front());
  return j < w && ops[j].nonblocking && compressed_collective_at(ops, j) ? j : ops.size();
}

}  // namespace

CodecRole codec_role(const std::vector<Op>& ops, std::size_t i) {
  const auto* c = i < ops.size() ? ops[i].as<ComputeOp>() : nullptr;
  if (!c || c->kind != ComputeKind::other) return CodecRole::none;
  if (compressed_collective_at(ops, i + 1)) return CodecRole::encode;
  if (i > 0 && compressed_collective_at(ops, i - 1) && !ops[i - 1].nonblocking) return CodecRole::decode;
  if (i > 0 && waited_collective(ops, i - 1) < ops.size()) return CodecRole::decode;
  return CodecRole::none;
}

std::size_t codec_collective(const std::vector<Op>& ops, std::size_t i) {
  switch (codec_role(ops, i)) {
    case CodecRole::encode: return i + 1;
    case CodecRole::decode: return ops[i - 1].as<CollectiveOp>() ? i - 1 : waited_collective(ops, i - 1);
    case CodecRole::none: break;
  }
  throw Error(fmt::format("op {} is not a codec op", i));
}

std::size_t wait_of(const std::vector<Op>& ops, std::size_t i) {
  for (std::size_t w = i + 1; w < ops.size(); ++w)
    if (const auto* wait = ops[w].as<WaitOp>())
      for (int j : wait->ops)
        if (static_cast<std::size_t>(j) == i) return w;
  return ops.size();
}

double compressed_bytes_sent(const CollectiveOp& op, int n, int p) {
  if (n <= 1) return 0;
  return static_cast<double>(elements_sent(compressed_schedule(op, n, p)));
}

}  // namespace geotrain
