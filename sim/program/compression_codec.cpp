#include "sim/program/compression_codec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/compression.hpp"

namespace geotrain {

namespace {

constexpr std::array<float, 8> kFp4Grid{0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};

// Index of the grid point nearest |v| (v already divided by the scale, so |v| <= 6).
std::uint8_t fp4_magnitude(float v) {
  const float a = std::fabs(v);
  std::uint8_t best = 0;
  for (std::uint8_t i = 1; i < kFp4Grid.size(); ++i)
    if (std::fabs(kFp4Grid[i] - a) < std::fabs(kFp4Grid[best] - a)) best = i;
  return best;
}

float qmax(CompressionKind kind) { return kind == CompressionKind::fp4 ? 6.0f : 127.0f; }

std::size_t code_bytes(CompressionKind kind, std::size_t elements) {
  return kind == CompressionKind::fp4 ? (elements + 1) / 2 : elements;
}

void check_sizes(CompressionKind kind, int block, std::size_t elements, std::size_t bytes) {
  if (kind != CompressionKind::int8 && kind != CompressionKind::fp4)
    throw Error("quantize: only int8 and fp4 are quantized");
  if (bytes != quantized_bytes(kind, block, elements))
    throw Error("quantize: buffer of the wrong size for its chunk");
}

float code_value(CompressionKind kind, const std::uint8_t* codes, std::size_t i) {
  if (kind == CompressionKind::int8) return static_cast<float>(static_cast<std::int8_t>(codes[i]));
  const std::uint8_t nibble = (codes[i / 2] >> (4 * (i % 2))) & 0xF;
  const float m = kFp4Grid[nibble & 7];
  return (nibble & 8) ? -m : m;
}

template <typename Apply>
void dequantize_with(CompressionKind kind, int block, std::span<const std::uint8_t> in, std::size_t elements,
                     Apply apply) {
  check_sizes(kind, block, elements, in.size());
  const std::uint8_t* codes = in.data();
  const std::uint8_t* scales = in.data() + code_bytes(kind, elements);
  const auto b = static_cast<std::size_t>(block);
  for (std::size_t blk = 0; blk * b < elements; ++blk) {
    float scale;
    std::memcpy(&scale, scales + kScaleBytes * blk, sizeof scale);
    for (std::size_t i = blk * b; i < std::min(elements, (blk + 1) * b); ++i)
      apply(i, code_value(kind, codes, i) * scale);
  }
}

}  // namespace

std::span<const float> fp4_grid() { return kFp4Grid; }

void quantize_chunk(CompressionKind kind, int block, std::span<const float> in, std::span<std::uint8_t> out) {
  check_sizes(kind, block, in.size(), out.size());
  std::uint8_t* codes = out.data();
  std::uint8_t* scales = out.data() + code_bytes(kind, in.size());
  std::fill(codes, scales, std::uint8_t{0});
  const auto b = static_cast<std::size_t>(block);
  for (std::size_t blk = 0; blk * b < in.size(); ++blk) {
    const std::size_t begin = blk * b, end = std::min(in.size(), begin + b);
    float absmax = 0;
    for (std::size_t i = begin; i < end; ++i) absmax = std::max(absmax, std::fabs(in[i]));
    const float scale = absmax / qmax(kind);
    std::memcpy(scales + kScaleBytes * blk, &scale, sizeof scale);
    if (scale == 0) continue;  // codes stay 0
    for (std::size_t i = begin; i < end; ++i) {
      const float v = in[i] / scale;
      if (kind == CompressionKind::int8) {
        codes[i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(std::nearbyint(v), -127.0f, 127.0f)));
      } else {
        const std::uint8_t nibble = static_cast<std::uint8_t>((v < 0 ? 8 : 0) | fp4_magnitude(v));
        codes[i / 2] |= static_cast<std::uint8_t>(nibble << (4 * (i % 2)));
      }
    }
  }
}

void dequantize_chunk(CompressionKind kind, int block, std::span<const std::uint8_t> in, std::span<float> out) {
  dequantize_with(kind, block, in, out.size(), [&](std::size_t i, float v) { out[i] = v; });
}

void dequantize_add_chunk(CompressionKind kind, int block, std::span<const std::uint8_t> in,
                          std::span<float> out) {
  dequantize_with(kind, block, in, out.size(), [&](std::size_t i, float v) { out[i] += v; });
}

void select_topk(std::span<float> acc, std::span<std::uint8_t> message) {
  const std::size_t k = message.size() / kTopkPairBytes;
  if (k > acc.size() || message.size() % kTopkPairBytes != 0) throw Error("top-k: message of the wrong size");
  std::vector<std::int32_t> order(acc.size());
  std::iota(order.begin(), order.end(), 0);
  const auto larger = [&](std::int32_t a, std::int32_t b) {
    const float x = std::fabs(acc[static_cast<std::size_t>(a)]), y = std::fabs(acc[static_cast<std::size_t>(b)]);
    return x > y || (x == y && a < b);
  };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(), larger);
  std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k));
  std::uint8_t* values = message.data();
  std::uint8_t* indices = message.data() + 4 * k;
  for (std::size_t j = 0; j < k; ++j) {
    const std::int32_t index = order[j];
    float& v = acc[static_cast<std::size_t>(index)];
    std::memcpy(values + 4 * j, &v, 4);
    std::memcpy(indices + 4 * j, &index, 4);
    v = 0;
  }
}

void add_topk(std::span<const std::uint8_t> message, std::span<float> out) {
  const std::size_t k = message.size() / kTopkPairBytes;
  for (std::size_t j = 0; j < k; ++j) {
    float v;
    std::int32_t index;
    std::memcpy(&v, message.data() + 4 * j, 4);
    std::memcpy(&index, message.data() + 4 * k + 4 * j, 4);
    if (index < 0 || static_cast<std::size_t>(index) >= out.size()) throw Error("top-k: index outside the buffer");
    out[static_cast<std::size_t>(index)] += v;
  }
}

}  // namespace geotrain
