#include "emu/profile/profile_key.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <set>

#include "emu/worker/profile_ops.hpp"
#include "sim/program/compression.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/compute_profile.hpp"

namespace geotrain::profile {

namespace {

// FNV-1a, 64 bits: a stable file name across machines and compilers (std::hash is neither).
std::uint64_t fnv1a64(const std::string& text) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const unsigned char c : text) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

}  // namespace

PlannedProfileKey planned_profile_key(const Scenario& s, const std::string& device, int threads) {
  // As geotrain profile builds it: placement does not change an op.
  Scenario shapes = s;
  if (shapes.placement.kind == PlacementKind::scheduler) shapes.placement.kind = PlacementKind::identity;
  const Program program = build_program(shapes);
  const ProfileMeasuredAt at = measured_at_of(s);
  std::string text = fmt::format("model {} layers {} d_model {} heads {} seq_len {} vocab {} dtype {}\n",
                                 s.model.preset, at.layers, at.d_model, at.heads, at.seq_len, at.vocab, at.dtype);
  text += fmt::format("optimizer {}\ndevice {}\ntorch_threads {}\n", at.optimizer, device,
                      threads > 0 ? threads : s.emulation.torch_threads);
  // Sorted, so the order the strategy emits its ops in does not matter. An `other` op (a codec's
  // encode or decode, a gossip or parameter-server averaging) is matched to a profile entry by its
  // flops as well (sim/workload/compute_profile), so its flops are part of its line: AD-PSGD's
  // averaging and the sharded server's are different ops of the same stage and layers.
  std::set<std::string> ops;
  for (const auto& site : distinct_compute_ops(program)) {
    const auto& c = *program.ranks.at(static_cast<std::size_t>(site.rank))
                         .at(static_cast<std::size_t>(site.op))
                         .as<ComputeOp>();
    std::string line = fmt::format("op {} stage {} layers [{}, {}) sequences {:g}", to_string(c.kind), c.stage,
                                   c.layer_begin, c.layer_end, c.sequences);
    if (c.kind == ComputeKind::other) line += fmt::format(" flops {:g}", c.flops);
    ops.insert(line + "\n");
  }
  // The codec an exchange runs: its encode and decode are `other` ops whose flops the cost model
  // gives alike for int8 and fp4, but the worker times the codec's own code.
  for (const auto& rank_ops : program.ranks)
    for (const auto& op : rank_ops)
      if (const auto* c = op.as<CollectiveOp>(); c && c->compression.kind != CompressionKind::none)
        ops.insert(fmt::format("codec {} block {} density {:g} error_feedback {} element_bytes {}\n",
                               to_string(c->compression.kind), c->compression.block, c->compression.density,
                               c->compression.error_feedback, c->compression.element_bytes));
  for (const auto& op : ops) text += op;
  return {text, fmt::format("{:016x}", fnv1a64(text))};
}

}  // namespace geotrain::profile
