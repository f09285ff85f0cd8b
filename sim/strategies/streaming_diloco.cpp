// streaming-diloco (Streaming DiLoCo, Douillard et al. 2025, arXiv 2501.18512): DiLoCo whose
// model is synchronized in F fragments (consecutive layer groups) instead of all at once, the
// fragments staggered across the H inner steps, and each fragment's exchange overlapping the
// inner steps that follow it. One Program iteration is one round of H inner steps; per rank:
//   inner step k (forward + backward of the replica's micro-batches, inner optimizer), then
//   for the fragment f whose offset f x H / F is k: its pseudo-gradient (weights at its last
//     sync minus now, "pseudo-gradient f<f>") and a NONBLOCKING all-reduce of it in the wire
//     dtype ("allreduce fragment <f>"), which runs while the next inner steps compute;
//   for the fragment whose exchange started `overlap_steps` (tau) steps earlier: wait for it,
//     then its outer Nesterov step ("outer optim f<f>", the update lands tau steps late) and the
//     merge of the outer-updated fragment with the weights trained meanwhile ("merge f<f>":
//     mixing x local + (1 - mixing) x global, the paper's alpha).
// tau = 0 waits at once (the exchange blocks, as DiLoCo's does). Every fragment's update lands
// inside its round: (F - 1) x H / F + tau <= H - 1 (checked), as the Program has no ops that
// span two iterations. Per round the bytes are DiLoCo's (the whole model once), but spread over
// F exchanges of 1/F of the model each, so the peak bandwidth need falls F-fold. The paper also
// sends the outer gradients in 4-bit floats: `compression: {kind: fp4}` (or int8, topk), the
// encoder before the nonblocking all-reduce and the decoder after its wait
// (compressed_exchange.hpp's start_exchange / finish_exchange).
//
// The Program's OuterStep says `fragmented`: the worker keeps the outer state (global weights,
// outer momentum, the pseudo-gradient buffer) per fragment (emu/worker/fragment_outer_state.hpp),
// so an exchange in flight never shares a tensor with the inner steps that overlap it.
#include <fmt/format.h>

#include <algorithm>

#include "sim/strategies/compressed_exchange.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

struct Fragment {
  int layer_begin = 0, layer_end = 0;
  int sync_step = 0;  // the inner step after which its exchange starts
};

std::vector<Fragment> fragments_of(const Scenario& s) {
  const auto f = static_cast<int>(s.strategy.integer("fragments"));
  const auto h = static_cast<int>(s.strategy.integer("inner_steps"));
  const int layers = s.model.layers;
  std::vector<Fragment> out;
  for (int i = 0; i < f; ++i)
    out.push_back({layers * i / f, layers * (i + 1) / f, h * i / f});
  return out;
}

// A fragment's parameters on a worker that holds the whole model: a pipeline stage's count, less
// the LM head copy a last stage keeps (here the head is tied to the first fragment's embedding),
// so that the fragments add up to the model.
double fragment_params(const ModelSpec& m, const Fragment& f) {
  double p = stage_params(m, f.layer_begin, f.layer_end);
  if (f.layer_end == m.layers && f.layer_begin > 0) p -= static_cast<double>(m.vocab) * m.d_model;
  return p;
}

// An element-wise pass over a fragment's fp32 weights costing `flops` and `bytes` per parameter.
Op fragment_op(const ModelSpec& m, const Fragment& f, ComputeKind kind, double flops, double bytes,
               std::string label) {
  return weights_pass_op(f.layer_begin, f.layer_end, fragment_params(m, f), kind, flops, bytes, std::move(label));
}

// The fragment's pseudo-gradient in the wire dtype: its share of DiLoCo's whole-model bytes.
// Multiplied before dividing, so that a real model's fragment is exactly its parameters x the
// dtype's bytes (the worker checks its buffer's bytes against the op's to the byte).
double wire_bytes(const Scenario& s, const Fragment& f) {
  const ModelSpec& m = s.model;
  if (m.nominal_params > 0) return diloco_wire_bytes(s) * (f.layer_end - f.layer_begin) / m.layers;
  return diloco_wire_bytes(s) * fragment_params(m, f) / stage_params(m, 0, m.layers);
}

Program build_streaming_diloco(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "streaming-diloco", data_parallel_devices(placement));
  const int n = p.world_size;
  const auto h = static_cast<int>(s.strategy.integer("inner_steps"));
  const auto tau = static_cast<int>(s.strategy.integer("overlap_steps"));
  const auto frags = fragments_of(s);
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const auto algorithm = allreduce_algorithm(s, n);
  const DType wire = *parse_dtype(s.strategy.text("wire_dtype"));
  const Compression compression = scenario_compression(s, static_cast<int>(dtype_bytes(wire)));
  for (auto& ops : p.ranks) {
    std::vector<int> exchange(frags.size(), -1);  // op index of each fragment's all-reduce
    const auto land = [&](std::size_t f) {
      const Fragment& g = frags[f];
      finish_exchange(ops, exchange[f], fmt::format("wait fragment {}", f), n, s.model.layers);
      // Nesterov SGD on the averaged pseudo-gradient (as DiLoCo's outer step: 5 flop, 20 B per
      // parameter), then the merge: read two buffers, write one.
      ops.push_back(fragment_op(s.model, g, ComputeKind::outer_optimizer, 5, 20, fmt::format("outer optim f{}", f)));
      ops.push_back(fragment_op(s.model, g, ComputeKind::other, 3, 12, fmt::format("merge f{}", f)));
    };
    for (int k = 0; k < h; ++k) {
      add_local_steps(ops, s, mb, 1, k);
      for (std::size_t f = 0; f < frags.size(); ++f) {
        if (frags[f].sync_step != k) continue;
        ops.push_back(fragment_op(s.model, frags[f], ComputeKind::other, 1, 12, fmt::format("pseudo-gradient f{}", f)));
        CollectiveOp c = collective(CollectiveKind::allreduce, world, wire_bytes(s, frags[f]), algorithm,
                                    0, static_cast<int>(f));
        c.payload = Payload::pseudo_gradient;
        c.compression = compression;
        exchange[f] = start_exchange(ops, c, fmt::format("allreduce fragment {}", f), n, s.model.layers);
        if (tau == 0) land(f);
      }
      if (tau > 0)
        for (std::size_t f = 0; f < frags.size(); ++f)
          if (frags[f].sync_step + tau == k) land(f);
    }
  }
  p.outer_step = OuterStep{s.strategy.number("outer_lr"), s.strategy.number("outer_momentum"),
                           wire, true, s.strategy.number("mixing")};
  p.sequences_per_iteration *= h;
  p.tokens_per_iteration *= h;
  p.model_flops_per_iteration *= h;
  return p;
}

void streaming_check(const Scenario& s, Diagnostics& diag, int line) {
  data_parallel_check(s, diag, line);
  compression_check(s, diag, line, false);
  const auto h = s.strategy.integer("inner_steps");
  const auto f = s.strategy.integer("fragments");
  const auto tau = s.strategy.integer("overlap_steps");
  if (f > s.model.layers)
    diag.error(line, "strategy.fragments",
               fmt::format("{} fragments of a model of {} layers (expected at most one per layer)", f, s.model.layers));
  if (f > h)
    diag.error(line, "strategy.fragments",
               fmt::format("{} fragments over {} inner steps (expected at most one fragment per step)", f, h));
  else if (h * (f - 1) / f + tau > h - 1)
    diag.error(line, "strategy.overlap_steps",
               fmt::format("the last fragment syncs after inner step {} of {} and lands {} steps later, "
                           "after its round (expected overlap_steps <= {})",
                           h * (f - 1) / f, h, tau, h - 1 - h * (f - 1) / f));
}

const StrategyRegistrar kStreamingDilocoRegistrar{{
    {"streaming-diloco",
     "Streaming DiLoCo: DiLoCo synchronized fragment by fragment, staggered over the H inner "
     "steps, each fragment's all-reduce overlapping the next overlap_steps inner steps",
     with_outer_step_params({integer_param("inner_steps", 100, 1, 1e6, "inner steps H per round (each fragment syncs once)"),
      integer_param("fragments", 4, 1, 1e4, "fragments F: consecutive layer groups"),
      integer_param("overlap_steps", 1, 0, 1e6, "inner steps tau an exchange overlaps before its update lands"),
      number_param("mixing", 0.5, 0, 1, "merge: share of the locally trained weights (the paper's alpha)"),
      choice_param("wire_dtype", "fp32", dtype_names(), "pseudo-gradient dtype on the wire"),
      choice_param("algorithm", "ring", collective_algorithm_names(), "all-reduce algorithm"),
      compression_param()}),
     streaming_check},
    StrategyLayout::data_parallel, build_streaming_diloco}};

}  // namespace

}  // namespace geotrain
