// hetpipe (HetPipe, Park et al. ATC'20; SD-Pipe's --pipeline hetpipe baseline): D pipelines
// ("virtual workers", S stages each, rank = replica x S + stage) keep no weights of their own
// between waves; a parameter server per stage does. One Program iteration = one wave: every
// micro-batch of the replica's share through the pipeline (pipeline_ops.hpp), then per stage
// each virtual worker pushes the wave's gradients to that stage's server and pulls the updated
// weights back. The server lives on the stage ranks of replica `server`; it applies the pushes
// one optimizer step each, its own first and then the others' in replica order (a fixed order
// a Program can express; a real server applies them as they come), and returns the weights
// after that replica's update. Staleness: a wave waits for its own pull (bound 0); HetPipe's
// wave-synchronous bound D > 0 is not expressed.
#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/strategies/pipeline_ops.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

void server_ops(std::vector<Op>& ops, const Pipeline& pl, int stage, int server) {
  const auto [begin, end] = pl.layers[static_cast<std::size_t>(stage)];
  const double bytes = stage_gradient_bytes(pl.s.model, begin, end);
  const int push = 2 * pl.mb.micro_batches, pull = push + 1;
  std::vector<int> recvs(static_cast<std::size_t>(pl.replicas), -1), sends;
  for (int r = 0; r < pl.replicas; ++r) {
    if (r == server) continue;
    recvs[static_cast<std::size_t>(r)] = static_cast<int>(ops.size());
    ops.push_back(make_op(RecvOp{pl.rank(r, stage), bytes, push},
                          fmt::format("recv push s{} r{}", stage, r), true));
  }
  pipeline_ops(ops, pl, server, stage);
  ops.push_back(make_op(optimizer_op(pl.s.model, pl.s.training.optimizer, stage, begin, end),
                        fmt::format("apply s{} r{}", stage, server)));
  for (int r = 0; r < pl.replicas; ++r) {
    if (r == server) continue;
    ops.push_back(make_wait({recvs[static_cast<std::size_t>(r)]},
                            fmt::format("wait push s{} r{}", stage, r)));
    ops.push_back(make_op(optimizer_op(pl.s.model, pl.s.training.optimizer, stage, begin, end),
                          fmt::format("apply s{} r{}", stage, r)));
    sends.push_back(static_cast<int>(ops.size()));
    ops.push_back(make_op(SendOp{pl.rank(r, stage), bytes, pull},
                          fmt::format("send weights s{} r{}", stage, r), true));
  }
  if (!sends.empty()) ops.push_back(make_wait(sends, fmt::format("wait pulls s{}", stage)));
}

void worker_ops(std::vector<Op>& ops, const Pipeline& pl, int replica, int stage, int server) {
  const auto [begin, end] = pl.layers[static_cast<std::size_t>(stage)];
  const double bytes = stage_gradient_bytes(pl.s.model, begin, end);
  const int push = 2 * pl.mb.micro_batches, pull = push + 1, to = pl.rank(server, stage);
  pipeline_ops(ops, pl, replica, stage);
  ops.push_back(make_op(SendOp{to, bytes, push}, fmt::format("push s{}", stage), false));
  ops.push_back(make_op(RecvOp{to, bytes, pull}, fmt::format("pull s{}", stage), false));
}

}  // namespace

Program build_hetpipe(const Scenario& s, const Assignment& placement) {
  std::vector<int> devices;
  const Pipeline pl = pipeline_of(s, placement, devices);
  const auto server = static_cast<int>(s.strategy.integer("server"));
  if (server >= pl.replicas)
    throw InputError(fmt::format("{}: strategy.server = {}: no such replica (expected 0 to {})",
                                 s.path, server, pl.replicas - 1));
  Program p = new_program(s, "hetpipe", devices);
  for (int st = 0; st < pl.stages; ++st)
    for (int r = 0; r < pl.replicas; ++r) {
      auto& ops = p.ranks[static_cast<std::size_t>(pl.rank(r, st))];
      if (r == server)
        server_ops(ops, pl, st, server);
      else
        worker_ops(ops, pl, r, st, server);
    }
  return p;
}

}  // namespace geotrain
