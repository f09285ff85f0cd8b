#include "test_programs.hpp"

#include <fmt/format.h>

namespace geotrain::test {

namespace {

Op op(decltype(Op::body) body, std::string label, bool nonblocking = false) {
  Op o;
  o.body = std::move(body);
  o.label = std::move(label);
  o.nonblocking = nonblocking;
  return o;
}

ComputeOp compute(ComputeKind k, int stage, int mb, int lb, int le, double sequences) {
  return {k, stage, mb, lb, le, sequences, 0, 0};
}

WorkerJob job_for(const ModelSpec& m, Program p, bool tied) {
  WorkerJob job;
  job.model = m;
  job.program = std::move(p);
  job.tie_embeddings = tied;
  job.optimizer = Optimizer::adam;
  job.learning_rate = 3e-3;
  return job;
}

}  // namespace

ModelSpec tiny_model() { return model_preset("gpt-tiny"); }

double stage_parameters(const ModelSpec& m, int lb, int le, bool tied) {
  double n = (le - lb) * params_per_layer(m);
  if (lb == 0) n += embedding_params(m);
  if (le == m.layers) n += 2.0 * m.d_model + (tied ? 0.0 : static_cast<double>(m.vocab) * m.d_model);
  return n;
}

WorkerJob ddp_job(const ModelSpec& m, const DdpOptions& o) {
  Program p;
  p.strategy = o.parameter_server ? "ps-gather-scatter" : o.bucketed ? "ddp-bucketed" : "ddp-allreduce";
  p.world_size = o.ranks;
  Group world{0, "world", {}};
  for (int r = 0; r < o.ranks; ++r) world.ranks.push_back(r), p.device_of_rank.push_back(r);
  p.groups = {world};
  p.sequences_per_iteration = o.ranks * o.sequences_per_rank;
  p.tokens_per_iteration = p.sequences_per_iteration * m.seq_len;
  const double mb_seq = static_cast<double>(o.sequences_per_rank) / o.micro_batches;
  const double grad_bytes = 4 * stage_parameters(m, 0, m.layers, true);
  const int L = m.layers, split = L - 2;  // bucket 0: final norm + the top two layers
  const double bucket0 = 4 * (2.0 * m.d_model + 2 * params_per_layer(m));
  for (int r = 0; r < o.ranks; ++r) {
    std::vector<Op> ops;
    for (int mb = 0; mb < o.micro_batches; ++mb)
      ops.push_back(op(compute(ComputeKind::forward, 0, mb, 0, L, mb_seq), fmt::format("fwd mb{}", mb)));
    for (int mb = 0; mb < o.micro_batches; ++mb) {
      const bool last = mb == o.micro_batches - 1;
      if (o.bucketed && last) {
        ops.push_back(op(compute(ComputeKind::backward, 0, mb, split, L, mb_seq), "bwd top"));
        ops.push_back(op(CollectiveOp{CollectiveKind::allreduce, 0, bucket0, o.algorithm, 0, 0}, "bucket 0", true));
        ops.push_back(op(compute(ComputeKind::backward, 0, mb, 0, split, mb_seq), "bwd bottom"));
        ops.push_back(op(CollectiveOp{CollectiveKind::allreduce, 0, grad_bytes - bucket0, o.algorithm, 0, 1}, "bucket 1", true));
        const int n = static_cast<int>(ops.size());
        ops.push_back(op(WaitOp{{n - 3, n - 1}}, "wait buckets"));
      } else {
        ops.push_back(op(compute(ComputeKind::backward, 0, mb, 0, L, mb_seq), fmt::format("bwd mb{}", mb)));
      }
    }
    if (o.parameter_server) {
      ops.push_back(op(CollectiveOp{CollectiveKind::gather, 0, grad_bytes, CollectiveAlgorithm::direct, 0, 0}, "gather"));
      ops.push_back(op(CollectiveOp{CollectiveKind::scatter, 0, grad_bytes, CollectiveAlgorithm::direct, 0, 1}, "scatter"));
    } else if (!o.bucketed && o.ranks > 1) {
      ops.push_back(op(CollectiveOp{CollectiveKind::allreduce, 0, grad_bytes, o.algorithm, 0, 0}, "allreduce"));
    }
    ops.push_back(op(compute(ComputeKind::optimizer, 0, -1, 0, L, 0), "optim"));
    p.ranks.push_back(std::move(ops));
  }
  return job_for(m, std::move(p), true);
}

WorkerJob gpipe_job(const ModelSpec& m, int stages, int replicas, int micro_batches,
                    int sequences_per_micro_batch) {
  Program p;
  p.strategy = "gpipe";
  p.world_size = stages * replicas;
  for (int s = 0; s < stages; ++s) {
    Group g{s, fmt::format("dp stage {}", s), {}};
    for (int r = 0; r < replicas; ++r) g.ranks.push_back(r * stages + s);
    p.groups.push_back(g);
  }
  p.sequences_per_iteration = replicas * micro_batches * sequences_per_micro_batch;
  p.tokens_per_iteration = p.sequences_per_iteration * m.seq_len;
  const double act = activation_bytes(m, sequences_per_micro_batch);
  const double seq = sequences_per_micro_batch;
  for (int r = 0; r < replicas; ++r)
    for (int s = 0; s < stages; ++s) {
      const int rank = r * stages + s, lb = m.layers * s / stages, le = m.layers * (s + 1) / stages;
      p.device_of_rank.push_back(rank);
      std::vector<Op> ops;
      for (int mb = 0; mb < micro_batches; ++mb) {
        if (s > 0) ops.push_back(op(RecvOp{rank - 1, act, mb, Payload::activation, mb}, fmt::format("recv act mb{}", mb)));
        ops.push_back(op(compute(ComputeKind::forward, s, mb, lb, le, seq), fmt::format("fwd s{} mb{}", s, mb)));
        if (s < stages - 1) ops.push_back(op(SendOp{rank + 1, act, mb, Payload::activation, mb}, fmt::format("send act mb{}", mb), true));
      }
      for (int mb = micro_batches - 1; mb >= 0; --mb) {
        if (s < stages - 1) ops.push_back(op(RecvOp{rank + 1, act, 1000 + mb, Payload::activation_grad, mb}, fmt::format("recv grad mb{}", mb)));
        ops.push_back(op(compute(ComputeKind::backward, s, mb, lb, le, seq), fmt::format("bwd s{} mb{}", s, mb)));
        if (s > 0) ops.push_back(op(SendOp{rank - 1, act, 1000 + mb, Payload::activation_grad, mb}, fmt::format("send grad mb{}", mb), true));
      }
      if (replicas > 1)
        ops.push_back(op(CollectiveOp{CollectiveKind::allreduce, s, 4 * stage_parameters(m, lb, le, stages == 1), CollectiveAlgorithm::ring, 0, 0},
                         fmt::format("allreduce dp s{}", s)));
      ops.push_back(op(compute(ComputeKind::optimizer, s, -1, lb, le, 0), fmt::format("optim s{}", s)));
      p.ranks.push_back(std::move(ops));
    }
  return job_for(m, std::move(p), stages == 1);
}

}  // namespace geotrain::test
