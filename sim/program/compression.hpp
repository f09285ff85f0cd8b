#pragma once
// The wire bytes of compressed collectives (docs/compression.md): one definition that the
// simulator times, the worker's sends add up to and the emulator's byte check expects.
//
// Wire formats (compression_codec.hpp writes and reads them):
//  int8 chunk of e elements: e one-byte codes, then ceil(e / block) fp32 scales;
//  fp4 chunk of e elements: ceil(e / 2) bytes of two e2m1 codes each, then ceil(e / block) fp32
//    scales. Blocks start at the chunk's first element (the ring's chunks are quantized apart);
//  topk message of a member: k fp32 values, then k int32 indices (8 B per kept element).
// Scales are fp32, not fp16: a pseudo-gradient's small blocks (absmax ~1e-8) would underflow
// fp16, and the overhead is 4 B per block (6 % of int8 at block 64, 20 % of fp4 at block 32).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "sim/program/collective_schedule.hpp"
#include "sim/program/program.hpp"

namespace geotrain {

inline constexpr std::size_t kScaleBytes = 4;      // one fp32 scale per block
inline constexpr std::size_t kTopkPairBytes = 8;   // fp32 value + int32 index

// "none", "int8", "fp4", "topk" (scenario files, Program JSON, labels).
const char* to_string(CompressionKind k);
std::optional<CompressionKind> parse_compression_kind(const std::string& name);
const std::vector<std::string>& compression_kind_names();
// Elements per scale when a scenario gives none: 64 for int8, 32 for fp4 (0 otherwise).
int default_block(CompressionKind k);

// Elements of the op's uncompressed buffer (bytes / element_bytes).
std::size_t compressed_elements(const CollectiveOp& op);
std::size_t block_count(std::size_t elements, int block);
// Wire bytes of one quantized chunk (int8 / fp4): codes, then the chunk's scales.
std::size_t quantized_bytes(CompressionKind kind, int block, std::size_t elements);
// Kept elements of a top-k message: ceil(density x elements), at least 1, at most all.
std::size_t topk_count(double density, std::size_t elements);
// Bytes of one member's top-k message (k pairs).
std::size_t topk_message_bytes(const Compression& c, std::size_t elements);

// The steps of compressed collective `op` for group position `position` of `group_size`, with
// every Transfer's count in WIRE BYTES (what a simulator times and a worker sends):
//  int8 / fp4: the ring all-reduce's steps (collective_schedule), each chunk of e elements
//    sending quantized_bytes(e); offsets stay the chunks' first elements;
//  topk: a ring all-gather of the members' messages; offsets are byte offsets into the gathered
//    buffer of group_size messages (member q's at q x topk_message_bytes).
// Throws InputError for kind none and for anything but a ring all-reduce.
std::vector<CollectiveStep> compressed_schedule(const CollectiveOp& op, int group_size,
                                                int position);

// An uncompressed collective over `group_size` members whose buffer is the compressed one's wire
// bytes (compression none): int8 / fp4 an all-reduce of every chunk's quantized bytes, topk an
// all-gather of every member's message. For executors that take only a kind and a byte count
// (the simulator's aggregated ring): the same total, in chunks of the mean size.
CollectiveOp wire_equivalent(const CollectiveOp& op, int group_size);

// A compressed collective's codec ops are compute ops (kind other) found by position
// (program.hpp): the encoder right before the collective; the decoder right after it, or, for a
// nonblocking collective (Streaming DiLoCo's overlapped exchange), right after the Wait that
// completes it and nothing else.
enum class CodecRole { none, encode, decode };
CodecRole codec_role(const std::vector<Op>& ops, std::size_t i);
// The index of the compressed collective codec op `i` serves (its role must not be none).
std::size_t codec_collective(const std::vector<Op>& ops, std::size_t i);
// The Wait that completes nonblocking op `i`: the first later Wait listing it (ops.size() if none).
std::size_t wait_of(const std::vector<Op>& ops, std::size_t i);

// Bytes this position sends in the whole compressed collective.
double compressed_bytes_sent(const CollectiveOp& op, int group_size, int position);

}  // namespace geotrain
