#include "sim/engine/collective_runner.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <cmath>
#include <set>
#include <tuple>

#include "sim/common/error.hpp"
#include "sim/engine/aggregated_direct.hpp"
#include "sim/engine/aggregated_ring.hpp"
#include "sim/engine/gloo_replay.hpp"
#include "sim/engine/schedule_replay.hpp"
#include "sim/program/collective_schedule.hpp"
#include "sim/program/compression.hpp"
#include "sim/program/gloo_algorithms.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

CollectiveAlgorithm modelled_algorithm(const CollectiveOp& op, const EngineSettings& settings) {
  if (settings.library_collectives) return CollectiveAlgorithm::library;
  if (!settings.nccl_collectives || op.algorithm != CollectiveAlgorithm::library) return op.algorithm;
  // NCCL's own collective (the worker on --backend nccl runs `library` ops with it), as the
  // Program schedule closest to what NCCL does over its socket transport between hosts: its ring
  // for all-reduce, reduce-scatter and all-gather (the same bytes per member, 2 (n-1)/n of the
  // buffer for all-reduce; NCCL's tree algorithm, which its tuner may pick for small messages
  // over many nodes, is not followed), point-to-point to and from the root for gather and scatter
  // (how ProcessGroupNCCL implements them), and a binomial tree for broadcast and reduce (NCCL
  // pipelines them along a ring: the same bytes, other latency terms).
  switch (op.kind) {
    case CollectiveKind::allreduce:
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
      return CollectiveAlgorithm::ring;
    case CollectiveKind::gather:
    case CollectiveKind::scatter:
      return CollectiveAlgorithm::direct;
    case CollectiveKind::broadcast:
    case CollectiveKind::reduce:
      return CollectiveAlgorithm::tree;
  }
  return op.algorithm;
}

bool uses_aggregated_ring(const CollectiveOp& op, int group_size, const EngineSettings& settings) {
  const bool ring_kind = op.kind == CollectiveKind::allreduce ||
                         op.kind == CollectiveKind::reduce_scatter ||
                         op.kind == CollectiveKind::allgather;
  return ring_kind && modelled_algorithm(op, settings) == CollectiveAlgorithm::ring &&
         group_size > settings.aggregate_collectives_above;
}

bool runs_aggregated_direct(const SimContext& ctx, const CollectiveOp& op, int group_size) {
  return uses_aggregated_direct(modelled_algorithm(op, ctx.settings()), group_size, ctx.settings(),
                                !ctx.platform().bandwidth_changes.empty());
}

namespace {

int root_position(const Group& g, int root_rank) {
  for (std::size_t i = 0; i < g.ranks.size(); ++i)
    if (g.ranks[i] == root_rank) return static_cast<int>(i);
  return -1;
}

std::size_t element_count(double bytes) { return static_cast<std::size_t>(std::llround(bytes)); }

// A compressed collective moves the wire bytes of compression.hpp: step by step as the worker
// sends them, or, in an aggregated ring, as the uncompressed collective of the same total.
double run_compressed(SimContext& ctx, int rank, const CollectiveOp& op, int instance) {
  const Group& g = ctx.program().group(op.group);
  const int n = static_cast<int>(g.ranks.size());
  const CollectiveOp wire = wire_equivalent(op, n);
  if (uses_aggregated_ring(wire, n, ctx.settings())) return run_aggregated_ring(ctx, rank, wire, instance);
  return replay_schedule(ctx, rank, g, compressed_schedule(op, n, ctx.position(op.group, rank)));
}

}  // namespace

void check_collectives(const Program& program, const EngineSettings& settings) {
  std::vector<std::string> problems;
  // (kind, algorithm, group size, bytes): one check each. Bytes matter only to Gloo's own
  // collectives (equal allgather chunks), so they are 0 in the key of the others.
  std::set<std::tuple<int, int, int, std::size_t>> seen;
  for (std::size_t r = 0; r < program.ranks.size(); ++r) {
    for (std::size_t i = 0; i < program.ranks[r].size(); ++i) {
      const auto* c = program.ranks[r][i].as<CollectiveOp>();
      if (c == nullptr) continue;
      const Group& g = program.group(c->group);
      const int root = root_position(g, c->root);
      if (root < 0) {
        problems.push_back(fmt::format("rank {} op {} '{}': root rank {} is not in group '{}'", r,
                                       i, program.ranks[r][i].label, c->root, g.name));
        continue;
      }
      const auto algorithm = modelled_algorithm(*c, settings);
      const int n = static_cast<int>(g.ranks.size());
      if (c->compression.kind != CompressionKind::none) {
        if (algorithm == CollectiveAlgorithm::library)
          problems.push_back(fmt::format("rank {} op {} '{}': compression {} needs send/recv collectives "
                                         "(emulation.collectives p2p): a library all-reduce cannot requantize",
                                         r, i, program.ranks[r][i].label, to_string(c->compression.kind)));
        continue;  // its schedule: compressed_schedule, checked by program validation
      }
      const bool library = algorithm == CollectiveAlgorithm::library;
      const std::size_t bytes = library ? element_count(c->bytes) : 0;
      if (!seen.emplace(static_cast<int>(c->kind), static_cast<int>(algorithm), n, bytes).second)
        continue;
      try {
        if (library)
          gloo_actions(c->kind, n, 0, root, bytes);
        else
          collective_schedule(c->kind, algorithm, n, 0, root, 1);
      } catch (const InputError& e) {
        for (const auto& line : e.problems())
          problems.push_back(fmt::format("rank {} op {} '{}': {}", r, i, program.ranks[r][i].label, line));
      }
    }
  }
  if (!problems.empty()) throw InputError(problems);
}

void run_collective(SimContext& ctx, int rank, const CollectiveOp& op, OpRecord& record) {
  const Group& g = ctx.program().group(op.group);
  const int n = static_cast<int>(g.ranks.size());
  const int position = ctx.position(op.group, rank);
  const double now = sg4::Engine::get_clock();
  const long sequence = ctx.next_collective(rank, op.group);
  const int instance = ctx.collectives().enter(op.group, sequence, position, n, now);
  // The ranks this one stands for enter with it (twin_ranks.hpp): only aggregated forms run here.
  for (int twin : ctx.twins_of(rank))
    ctx.collectives().enter(op.group, sequence, ctx.position(op.group, twin), n, now);
  record.collective_instance = instance;
  if (op.compression.kind != CompressionKind::none) {
    record.bytes_sent = run_compressed(ctx, rank, op, instance);
    return;
  }
  if (uses_aggregated_ring(op, n, ctx.settings())) {
    record.bytes_sent = run_aggregated_ring(ctx, rank, op, instance);
    return;
  }
  const auto algorithm = modelled_algorithm(op, ctx.settings());
  if (runs_aggregated_direct(ctx, op, n)) {
    record.bytes_sent = run_aggregated_direct(ctx, rank, op, instance);
    return;
  }
  if (algorithm == CollectiveAlgorithm::library) {
    record.bytes_sent = replay_gloo(ctx, rank, g,
                                    gloo_actions(op.kind, n, position, root_position(g, op.root),
                                                 element_count(op.bytes)));
    return;
  }
  const auto steps = collective_schedule(op.kind, algorithm, n, position,
                                         root_position(g, op.root), element_count(op.bytes),
                                         g.part_fractions);
  record.bytes_sent = replay_schedule(ctx, rank, g, steps);
}

}  // namespace geotrain::engine
