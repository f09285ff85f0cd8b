#include "emu/worker/collective_runner.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/program/butterfly_parts.hpp"
#include "sim/program/collective_schedule.hpp"
#include "sim/program/program_json.hpp"

namespace geotrain {

namespace {

double run_schedule(Cluster& cluster, const Group& group, const CollectiveOp& op,
                    torch::Tensor& buffer, int n, int position, int root) {
  auto& pg = cluster.group(op.group);
  const auto steps = collective_schedule(op.kind, op.algorithm, n, position, root,
                                         static_cast<std::size_t>(buffer.numel()), group.part_fractions);
  double sent = 0;
  std::vector<torch::Tensor> received;
  for (std::size_t s = 0; s < steps.size(); ++s) {
    P2PBatch batch(pg, cluster.transport());
    const int tag = static_cast<int>(s);  // ops of one group run one at a time: steps suffice
    // Receives before sends, as the simulator's replay posts them: Gloo writes a pair's messages
    // in order on one socket, and a peer may send only once it has this rank's "ready to receive"
    // notice. Posted after a send to the same peer (a two-rank ring, a halving-doubling pair), the
    // notice would wait behind this rank's whole chunk, and the peer's chunk would start one
    // transfer time late (measured: a two-rank 440 KB all-reduce on a 56 Mbit/s, 11 ms link took
    // 0.17 s where rendezvous and transfer account for 0.11 s).
    received.clear();
    for (const auto& t : steps[s].recvs) {
      received.push_back(torch::empty({static_cast<std::int64_t>(t.count)}, buffer.options()));
      if (t.count > 0) batch.recv(received.back(), t.peer, tag);
    }
    for (const auto& t : steps[s].sends) {
      if (t.count == 0) continue;
      auto chunk = buffer.narrow(0, static_cast<std::int64_t>(t.offset), static_cast<std::int64_t>(t.count));
      sent += static_cast<double>(chunk.nbytes());
      batch.send(chunk, t.peer, tag);
    }
    batch.wait(cluster.timeout());
    for (std::size_t i = 0; i < received.size(); ++i) {
      const auto& t = steps[s].recvs[i];
      auto target = buffer.narrow(0, static_cast<std::int64_t>(t.offset), static_cast<std::int64_t>(t.count));
      if (steps[s].reduce) target.add_(received[i]);
      else target.copy_(received[i]);
    }
  }
  return sent;
}

void run_library(Cluster& cluster, const CollectiveOp& op, torch::Tensor& buffer, int n,
                 int position, int root) {
  auto& pg = cluster.group(op.group);
  std::vector<torch::Tensor> one{buffer};
  const auto timeout = cluster.timeout();
  switch (op.kind) {
    case CollectiveKind::allreduce:
      pg.allreduce(one)->wait(timeout);
      return;
    case CollectiveKind::broadcast: {
      c10d::BroadcastOptions o;
      o.rootRank = root;
      pg.broadcast(one, o)->wait(timeout);
      return;
    }
    case CollectiveKind::reduce: {
      c10d::ReduceOptions o;
      o.rootRank = root;
      pg.reduce(one, o)->wait(timeout);
      return;
    }
    case CollectiveKind::gather: {  // the root sums what it gathered (parameter server)
      c10d::GatherOptions o;
      o.rootRank = root;
      std::vector<std::vector<torch::Tensor>> out(1);
      if (position == root)
        for (int q = 0; q < n; ++q) out[0].push_back(torch::empty_like(buffer));
      pg.gather(out, one, o)->wait(timeout);
      if (position == root) buffer.copy_(torch::stack(out[0]).sum(0));
      return;
    }
    case CollectiveKind::scatter: {
      c10d::ScatterOptions o;
      o.rootRank = root;
      std::vector<std::vector<torch::Tensor>> in(1);
      if (position == root) in[0].assign(static_cast<std::size_t>(n), buffer);
      std::vector<torch::Tensor> out{torch::empty_like(buffer)};
      pg.scatter(out, in, o)->wait(timeout);
      buffer.copy_(out[0]);
      return;
    }
    case CollectiveKind::allgather: {
      if (buffer.numel() % n != 0)
        throw InputError(fmt::format("library allgather of {} elements over {} members: Gloo needs "
                                     "equal chunks (use the p2p algorithms)", buffer.numel(), n));
      const auto chunk = buffer.numel() / n;
      std::vector<torch::Tensor> mine{buffer.narrow(0, position * chunk, chunk).clone()};
      std::vector<std::vector<torch::Tensor>> out(1);
      for (int q = 0; q < n; ++q) out[0].push_back(torch::empty({chunk}, buffer.options()));
      pg.allgather(out, mine)->wait(timeout);
      for (int q = 0; q < n; ++q) buffer.narrow(0, q * chunk, chunk).copy_(out[0][static_cast<std::size_t>(q)]);
      return;
    }
    case CollectiveKind::reduce_scatter:
      throw InputError("the worker runs no library reduce_scatter (Gloo in LibTorch 1.13 has none): run it "
                       "with --collectives p2p");
  }
}

}  // namespace

double run_collective(Cluster& cluster, const Program& program, const CollectiveOp& op,
                      torch::Tensor buffer, bool use_library) {
  const Group& group = program.group(op.group);
  const auto& ranks = group.ranks;
  const int n = static_cast<int>(ranks.size());
  const int position = cluster.position(op.group);
  const auto root_it = std::find(ranks.begin(), ranks.end(), op.root);
  const int root = root_it == ranks.end() ? 0 : static_cast<int>(root_it - ranks.begin());
  double sent = 0;
  if (n > 1) {
    if (use_library || op.algorithm == CollectiveAlgorithm::library) {
      run_library(cluster, op, buffer, n, position, root);
      sent = -1;
    } else {
      sent = run_schedule(cluster, group, op, buffer, n, position, root);
    }
  }
  // Averaging happens once, where the sum is complete, so the mean is exact for any algorithm.
  switch (op.kind) {
    case CollectiveKind::allreduce:
      buffer.div_(n);
      break;
    case CollectiveKind::reduce_scatter: {
      // This member's chunk: a butterfly's own part, else chunk_range's (collective_schedule.hpp).
      const auto count = static_cast<std::size_t>(buffer.numel());
      const auto c = op.algorithm == CollectiveAlgorithm::butterfly && !group.part_fractions.empty()
                         ? part_range(count, group.part_fractions, position)
                         : chunk_range(count, n, position);
      buffer.narrow(0, static_cast<std::int64_t>(c.offset), static_cast<std::int64_t>(c.count)).div_(n);
      break;
    }
    case CollectiveKind::gather:
    case CollectiveKind::reduce:
      if (position == root) buffer.div_(n);
      break;
    default:
      break;
  }
  return sent;
}

}  // namespace geotrain
