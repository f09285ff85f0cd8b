#include "emu/launch/program_bytes.hpp"

#include <algorithm>
#include <cmath>

#include "sim/common/dtype.hpp"
#include "sim/program/collective_schedule.hpp"
#include "sim/program/compression.hpp"

namespace geotrain::emu {

namespace {

int position_in(const Group& g, int rank) {
  const auto it = std::find(g.ranks.begin(), g.ranks.end(), rank);
  return it == g.ranks.end() ? -1 : static_cast<int>(it - g.ranks.begin());
}

}  // namespace

double program_op_bytes(const Program& program, int rank, int op, DType gradient_dtype,
                        std::optional<DType> wire_dtype) {
  const auto& ops = program.ranks.at(static_cast<std::size_t>(rank));
  const Op& o = ops.at(static_cast<std::size_t>(op));
  if (const auto* s = o.as<SendOp>()) return s->bytes;
  if (const auto* c = o.as<CollectiveOp>()) {
    if (c->algorithm == CollectiveAlgorithm::library) return -1;
    const Group& g = program.group(c->group);
    if (c->compression.kind != CompressionKind::none)  // the wire bytes, whatever the dtype
      return compressed_bytes_sent(*c, static_cast<int>(g.ranks.size()), position_in(g, rank));
    const bool pseudo = wire_dtype && c->payload == Payload::pseudo_gradient;
    const double elem = static_cast<double>(dtype_bytes(pseudo ? *wire_dtype : gradient_dtype));
    const auto count = static_cast<std::size_t>(std::llround(c->bytes / elem));
    const int root = std::max(position_in(g, c->root), 0);
    const auto steps = collective_schedule(c->kind, c->algorithm, static_cast<int>(g.ranks.size()),
                                           position_in(g, rank), root, count, g.part_fractions);
    return static_cast<double>(elements_sent(steps)) * elem;
  }
  if (o.as<DynamicOp>()) return -1;
  return 0;
}

std::vector<double> program_bytes_per_rank(const Program& program, DType gradient_dtype,
                                           std::optional<DType> wire_dtype) {
  std::vector<double> out;
  for (int r = 0; r < program.world_size; ++r) {
    double sum = 0;
    for (std::size_t i = 0; i < program.ranks[static_cast<std::size_t>(r)].size(); ++i) {
      const double b = program_op_bytes(program, r, static_cast<int>(i), gradient_dtype, wire_dtype);
      if (b < 0) {
        sum = -1;
        break;
      }
      sum += b;
    }
    out.push_back(sum);
  }
  return out;
}

}  // namespace geotrain::emu
