// hetpipe (HetPipe, Park et al. ATC'20; SD-Pipe's --pipeline hetpipe baseline): D pipelines
// ("virtual workers", S stages each, rank = replica x S + stage) keep no weights of their own
// between synchronisations; a parameter server per stage does. A wave = every micro-batch of the
// replica's share through the pipeline (pipeline_ops.hpp); after each wave a virtual worker pushes
// the wave's gradients to its stage's server and pulls the updated weights back. The server
// lives on the stage ranks of replica `server`; it applies the pushes one optimizer step each,
// its own first and then the others' in replica order (a fixed order a Program can express; a
// real server applies them as they come), and returns the weights after that replica's update.
//
// Staleness (HetPipe's wave-synchronous bound, `staleness` = s): one Program iteration is s + 1
// waves. A virtual worker does not wait for its pulls inside the iteration: after each push it
// applies its own gradients to its local copy (a local optimizer step) and runs the next wave on
// those weights, so a wave sees global weights at most s waves old; the pulls are waited at the
// end of the iteration (the last one, with every push of the iteration applied, wins). The
// server runs its own waves the same way and serves the iteration's pushes at its end.
// s = 0 is HetPipe's synchronous case: one wave, the pull waited before the next wave.
#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/strategies/pipeline_ops.hpp"
#include "sim/workload/compute_ops.hpp"

namespace geotrain {

namespace {

// " w<k>" on the labels of wave k when an iteration has several (staleness > 0).
std::string wave(int w, int waves) { return waves > 1 ? fmt::format(" w{}", w) : ""; }

void server_ops(std::vector<Op>& ops, const Pipeline& pl, int stage, int server, int waves) {
  const auto [begin, end] = pl.layers[static_cast<std::size_t>(stage)];
  const double bytes = stage_gradient_bytes(pl.s.model, begin, end);
  const int push = 2 * pl.mb.micro_batches, pull = push + 1;
  // recvs[w][r]: the op receiving replica r's push of wave w.
  std::vector<std::vector<int>> recvs(static_cast<std::size_t>(waves),
                                      std::vector<int>(static_cast<std::size_t>(pl.replicas), -1));
  std::vector<int> sends;
  for (int w = 0; w < waves; ++w) {
    for (int r = 0; r < pl.replicas; ++r) {
      if (r == server) continue;
      recvs[static_cast<std::size_t>(w)][static_cast<std::size_t>(r)] = static_cast<int>(ops.size());
      ops.push_back(make_op(RecvOp{pl.rank(r, stage), bytes, push, Payload::gradients},
                            fmt::format("recv push s{} r{}{}", stage, r, wave(w, waves)), true));
    }
    pipeline_ops(ops, pl, server, stage);
    ops.push_back(make_op(optimizer_op(pl.s.model, pl.s.training.optimizer, stage, begin, end),
                          fmt::format("apply s{} r{}{}", stage, server, wave(w, waves))));
  }
  for (int w = 0; w < waves; ++w)
    for (int r = 0; r < pl.replicas; ++r) {
      if (r == server) continue;
      ops.push_back(make_wait({recvs[static_cast<std::size_t>(w)][static_cast<std::size_t>(r)]},
                              fmt::format("wait push s{} r{}{}", stage, r, wave(w, waves))));
      ops.push_back(make_op(optimizer_op(pl.s.model, pl.s.training.optimizer, stage, begin, end),
                            fmt::format("apply s{} r{}{}", stage, r, wave(w, waves))));
      sends.push_back(static_cast<int>(ops.size()));
      ops.push_back(make_op(SendOp{pl.rank(r, stage), bytes, pull, Payload::weights},
                            fmt::format("send weights s{} r{}{}", stage, r, wave(w, waves)), true));
    }
  if (!sends.empty()) ops.push_back(make_wait(sends, fmt::format("wait pulls s{}", stage)));
}

void worker_ops(std::vector<Op>& ops, const Pipeline& pl, int replica, int stage, int server,
                int waves) {
  const auto [begin, end] = pl.layers[static_cast<std::size_t>(stage)];
  const double bytes = stage_gradient_bytes(pl.s.model, begin, end);
  const int push = 2 * pl.mb.micro_batches, pull = push + 1, to = pl.rank(server, stage);
  const bool stale = waves > 1;
  std::vector<int> pulls;
  for (int w = 0; w < waves; ++w) {
    pipeline_ops(ops, pl, replica, stage);
    ops.push_back(make_op(SendOp{to, bytes, push, Payload::gradients}, fmt::format("push s{}{}", stage, wave(w, waves)), false));
    if (stale)  // the next wave runs on the local copy, updated with this wave's gradients
      ops.push_back(make_op(optimizer_op(pl.s.model, pl.s.training.optimizer, stage, begin, end),
                            fmt::format("local update s{}{}", stage, wave(w, waves))));
    pulls.push_back(static_cast<int>(ops.size()));
    ops.push_back(make_op(RecvOp{to, bytes, pull, Payload::weights}, fmt::format("pull s{}{}", stage, wave(w, waves)), stale));
  }
  if (stale) ops.push_back(make_wait(pulls, fmt::format("wait pulls s{}", stage)));
}

Program build_hetpipe(const Scenario& s, const Assignment& placement) {
  std::vector<int> devices;
  const Pipeline pl = pipeline_of(s, placement, devices);
  const auto server = static_cast<int>(s.strategy.integer("server"));
  if (server >= pl.replicas)
    throw InputError(fmt::format("{}: strategy.server = {}: no such replica (expected 0 to {})",
                                 s.path, server, pl.replicas - 1));
  const int waves = static_cast<int>(s.strategy.integer("staleness")) + 1;
  Program p = new_program(s, "hetpipe", devices);
  for (int st = 0; st < pl.stages; ++st)
    for (int r = 0; r < pl.replicas; ++r) {
      auto& ops = p.ranks[static_cast<std::size_t>(pl.rank(r, st))];
      if (r == server)
        server_ops(ops, pl, st, server, waves);
      else
        worker_ops(ops, pl, r, st, server, waves);
    }
  p.sequences_per_iteration *= waves;
  p.tokens_per_iteration *= waves;
  p.model_flops_per_iteration *= waves;
  return p;
}

const StrategyRegistrar kHetpipeRegistrar{{
    {"hetpipe",
     "HetPipe: pipelines (virtual workers) push each wave's gradients to a parameter server per "
     "stage, which applies them in arrival order and returns the weights",
     {integer_param("stages", 1, 1, 1e6, "pipeline stages S"),
      integer_param("replicas", 1, 1, 1e6, "virtual workers (pipelines) D"),
      choice_param("schedule", "gpipe", {"gpipe", "1f1b"}, "micro-batch schedule"),
      integer_param("server", 0, 0, 1e6, "replica whose stage ranks host the parameter server"),
      integer_param("staleness", 0, 0, 1000,
                    "waves a virtual worker runs on its local weights before it waits for the "
                    "server's (HetPipe's bound; one iteration = staleness + 1 waves)")},
     pipeline_check},
    StrategyLayout::pipeline, build_hetpipe}};

}  // namespace

}  // namespace geotrain
