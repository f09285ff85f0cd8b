#pragma once
// The arithmetic of compressed exchanges on plain float arrays (no LibTorch, so tests and any
// executor can run it): per-block quantization to int8 or fp4 (e2m1) and top-k selection with
// error feedback. The byte layouts are those of compression.hpp.
//
//  int8: scale = absmax(block) / 127, code = round(x / scale) in [-127, 127] (round to nearest,
//    so |x - code x scale| <= scale / 2); an all-zero block has scale 0.
//  fp4 (e2m1, OCP MX's FP4): magnitudes {0, 0.5, 1, 1.5, 2, 3, 4, 6} and a sign; scale =
//    absmax(block) / 6, code = the grid point nearest x / scale (ties to the lower magnitude);
//    a nibble is sign << 3 | magnitude index, element 2i in the low nibble of byte i.
//  topk: the k largest |x| (ties: the lower index), sent in ascending index order.
#include <cstddef>
#include <cstdint>
#include <span>

#include "sim/program/program.hpp"

namespace geotrain {

// Quantizes `in` (one chunk) into `out` (quantized_bytes(kind, block, in.size()) bytes).
void quantize_chunk(CompressionKind kind, int block, std::span<const float> in, std::span<std::uint8_t> out);
// Dequantizes a chunk written by quantize_chunk into `out` (in.size() elements): out = value.
void dequantize_chunk(CompressionKind kind, int block, std::span<const std::uint8_t> in, std::span<float> out);
// The same, adding: out += value (a ring hop's reduction).
void dequantize_add_chunk(CompressionKind kind, int block, std::span<const std::uint8_t> in, std::span<float> out);

// The e2m1 magnitudes, for tests.
std::span<const float> fp4_grid();

// Top-k with error feedback: `accumulated` holds the buffer plus what earlier exchanges left
// unsent. Writes the k largest |values| as a message (k fp32 values, then k int32 indices; k =
// message.size() / 8) and zeroes them in `accumulated`, which is then what was not sent (the
// residual to keep, with error feedback).
void select_topk(std::span<float> accumulated, std::span<std::uint8_t> message);
// Adds a member's top-k message into `out` (out[index] += value).
void add_topk(std::span<const std::uint8_t> message, std::span<float> out);

}  // namespace geotrain
