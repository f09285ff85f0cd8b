// ddp-bucketed (COS 598D task 3, PyTorch DDP's reducer): gradients are grouped into buckets of
// about bucket_size bytes in reverse layer order, the order backward produces them. While the
// last micro-batch's backward goes on, each bucket's all-reduce starts (nonblocking, tag = bucket
// index) as soon as its layers are done; the optimizer waits for all of them. Earlier
// micro-batches accumulate gradients without syncing (DDP's no_sync()). Unlike PyTorch we do not
// shrink the first bucket to 1 MB: buckets are a plain greedy split.
#include <fmt/format.h>

#include <algorithm>

#include "sim/strategies/strategy_builders.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

// A piece of the model whose gradient backward completes at once.
struct Unit {
  double params = 0;
  double backward_flops_per_sequence = 0;
  int layer = 0;  // decoder layer it belongs to (head -> last layer, embedding -> layer 0)
};

struct Bucket {
  double bytes = 0, params = 0, backward_flops_per_sequence = 0;
  int layer_begin = 0, layer_end = 0;
};

// Backward order: LM head + final norm (head weights are tied to the embedding, so only the norm
// is a parameter here), the layers from last to first, then the embeddings.
std::vector<Unit> units_in_backward_order(const ModelSpec& m) {
  std::vector<Unit> units;
  units.push_back(
      {2.0 * m.d_model, 2 * lm_head_forward_flops_per_token(m) * m.seq_len, m.layers - 1});
  for (int l = m.layers - 1; l >= 0; --l)
    units.push_back({params_per_layer(m), 2 * forward_flops_per_token_per_layer(m) * m.seq_len, l});
  units.push_back({embedding_params(m), 0, 0});
  return units;
}

// Greedy split: a bucket closes once it holds bucket_size bytes. Bytes follow the gradient size
// rule of stage_gradient_bytes (nominal parameters when set), so buckets sum to it exactly.
std::vector<Bucket> make_buckets(const ModelSpec& m, double bucket_size) {
  const double bytes_per_param = stage_gradient_bytes(m, 0, m.layers) / total_params(m);
  std::vector<Bucket> buckets;
  bool open = false;
  for (const Unit& u : units_in_backward_order(m)) {
    if (!open) buckets.push_back({0, 0, 0, u.layer, u.layer + 1}), open = true;
    Bucket& b = buckets.back();
    b.bytes += u.params * bytes_per_param;
    b.params += u.params;
    b.backward_flops_per_sequence += u.backward_flops_per_sequence;
    b.layer_begin = std::min(b.layer_begin, u.layer);
    b.layer_end = std::max(b.layer_end, u.layer + 1);
    if (b.bytes >= bucket_size) open = false;
  }
  return buckets;
}

ComputeOp bucket_backward(const ModelSpec& m, const Bucket& b, int micro_batch, double sequences) {
  ComputeOp op;
  op.kind = ComputeKind::backward;
  op.micro_batch = micro_batch;
  op.layer_begin = b.layer_begin;
  op.layer_end = b.layer_end;
  op.sequences = sequences;
  op.flops = b.backward_flops_per_sequence * sequences;
  op.memory_bytes = b.params * static_cast<double>(dtype_bytes(m.dtype));
  return op;
}

Program build_ddp_bucketed(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "ddp-bucketed", data_parallel_devices(placement));
  const int n = p.world_size, layers = s.model.layers;
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const auto algorithm = allreduce_algorithm(s, n);
  const auto buckets = make_buckets(s.model, s.strategy.number("bucket_size"));
  const int last = mb.micro_batches - 1;
  for (auto& ops : p.ranks) {
    add_forward_backward(ops, s.model, mb, last, 0, 0, layers);
    ops.push_back(make_op(forward_op(s.model, 0, last, 0, layers, mb.sequences),
                          fmt::format("fwd s0 mb{}", last)));
    std::vector<int> in_flight;
    for (std::size_t k = 0; k < buckets.size(); ++k) {
      const Bucket& b = buckets[k];
      if (b.backward_flops_per_sequence > 0)
        ops.push_back(make_op(bucket_backward(s.model, b, last, mb.sequences),
                              fmt::format("bwd s0 mb{} b{}", last, k)));
      in_flight.push_back(static_cast<int>(ops.size()));
      ops.push_back(make_op(
          collective(CollectiveKind::allreduce, world, b.bytes, algorithm, 0, static_cast<int>(k)),
          fmt::format("bucket {}", k), true));
    }
    ops.push_back(make_wait(in_flight, "wait buckets"));
    ops.push_back(optimizer_step(s, 0, 0, layers));
  }
  return p;
}

const StrategyRegistrar kDdpBucketedRegistrar{{
    {"ddp-bucketed",
     "PyTorch-DDP-like gradient buckets all-reduced while backward goes on (COS 598D task 3)",
     {bytes_param("bucket_size", 25e6, ValueRange{Quantity::bytes, 1, 1e15},
                  "gradient bytes per bucket (PyTorch's default 25 MB)"),
      choice_param("algorithm", "ring", collective_algorithm_names(), "all-reduce algorithm")},
     data_parallel_check},
    StrategyLayout::data_parallel, build_ddp_bucketed}};

}  // namespace

}  // namespace geotrain
