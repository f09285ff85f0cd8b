// validate_program's checks of compressed collectives (Compression, program.hpp): the fields
// in range, a ring all-reduce the executors can run, and the codec ops beside the collective.
#include <fmt/format.h>

#include <limits>

#include "sim/program/compression.hpp"
#include "sim/program/program_checks.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain::detail {

namespace {

// The codec op at `j` of rank r's list: a ComputeOp of kind other active when the collective is.
bool codec_op_at(const std::vector<Op>& ops, std::size_t j, const Op& collective) {
  if (j >= ops.size()) return false;
  const auto* c = ops[j].as<ComputeOp>();
  return c && c->kind == ComputeKind::other && ops[j].iterations == collective.iterations;
}

}  // namespace

void check_compression(const Program& p, int r, int i, const CollectiveOp& c, Problems& out) {
  const Compression& z = c.compression;
  if (z.kind == CompressionKind::none) return;
  const auto where = op_where(p, r, i);
  if (c.kind != CollectiveKind::allreduce || c.algorithm != CollectiveAlgorithm::ring)
    out.add(fmt::format("{}: compression {} on a {} with algorithm {} (expected a ring all-reduce)",
                        where, to_string(z.kind), to_string(c.kind), to_string(c.algorithm)));
  if ((z.kind == CompressionKind::int8 || z.kind == CompressionKind::fp4) && z.block < 1)
    out.add(fmt::format("{}: compression block = {} (expected >= 1)", where, z.block));
  if (z.kind == CompressionKind::topk && !(z.density > 0 && z.density <= 1))
    out.add(fmt::format("{}: compression density = {} (expected > 0 and <= 1)", where, z.density));
  if (z.kind == CompressionKind::topk && c.payload == Payload::weights)
    out.add(fmt::format("{}: compression topk of weights (expected gradients or pseudo_gradient: a "
                        "sparse sum of weights is no average)", where));
  if (z.element_bytes != 1 && z.element_bytes != 2 && z.element_bytes != 4 && z.element_bytes != 8)
    out.add(fmt::format("{}: compression element_bytes = {} (expected 1, 2, 4 or 8)", where, z.element_bytes));
  else if (static_cast<double>(compressed_elements(c)) * z.element_bytes != c.bytes)
    out.add(fmt::format("{}: {} bytes are not a whole number of {}-byte elements", where, c.bytes, z.element_bytes));
  else if (z.kind == CompressionKind::topk &&
           c.bytes / z.element_bytes > static_cast<double>(std::numeric_limits<std::int32_t>::max()))
    // int8 and fp4 address chunks and blocks with 64-bit counts; only top-k's indices are int32.
    out.add(fmt::format("{}: top-k of {} elements (expected below 2^31: its indices are int32)", where,
                        c.bytes / z.element_bytes));
  const auto& ops = p.ranks[static_cast<std::size_t>(r)];
  const Op& op = ops[static_cast<std::size_t>(i)];
  const auto u = static_cast<std::size_t>(i);
  if (op.nonblocking) {
    // Overlapped (Streaming DiLoCo): the decoder follows the Wait that completes it alone.
    const std::size_t w = wait_of(ops, u);
    if (u == 0 || !codec_op_at(ops, u - 1, op) || w >= ops.size() || ops[w].as<WaitOp>()->ops.size() != 1 ||
        !codec_op_at(ops, w + 1, op))
      out.add(fmt::format("{}: a nonblocking compressed collective needs its encoder right before it and "
                          "its decoder right after a Wait for it alone (compute ops of kind other, active "
                          "in the same iterations)", where));
    return;
  }
  if (u == 0 || !codec_op_at(ops, u - 1, op) || !codec_op_at(ops, u + 1, op))
    out.add(fmt::format("{}: a compressed collective needs its codec ops right before and after it "
                        "(compute ops of kind other, active in the same iterations)", where));
}

}  // namespace geotrain::detail
