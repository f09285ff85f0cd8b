// ps-gather-scatter (COS 598D task 2a): the server rank gathers every rank's gradients (summed on
// arrival), divides by N and scatters the mean back; everyone then steps its optimizer. All flows
// cross the server, so it is the bottleneck the sharded variant removes.
#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/strategies/strategy_builders.hpp"

namespace geotrain {

namespace {

Program build_ps_gather_scatter(const Scenario& s, const Assignment& placement) {
  Program p = new_program(s, "ps-gather-scatter", data_parallel_devices(placement));
  const int n = p.world_size, layers = s.model.layers;
  const auto server = s.strategy.integer("server");
  if (server >= n)
    throw InputError(fmt::format("{}: strategy.server = {}: no such rank (expected 0 to {})",
                                 s.path, server, n - 1));
  const int root = static_cast<int>(server);
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  const GroupId world = add_group(p, "world", everyone);
  const MicroBatching mb = micro_batching(s.training, n);
  const double gradient = stage_gradient_bytes(s.model, 0, layers);
  for (int r = 0; r < n; ++r) {
    auto& ops = p.ranks[static_cast<std::size_t>(r)];
    add_forward_backward(ops, s.model, mb, mb.micro_batches, 0, 0, layers);
    ops.push_back(make_op(
        collective(CollectiveKind::gather, world, gradient, CollectiveAlgorithm::direct, root),
        "gather dp s0"));
    if (r == root) ops.push_back(averaging(s.model, gradient, 0, 0, layers, "average s0"));
    ops.push_back(make_op(
        collective(CollectiveKind::scatter, world, gradient, CollectiveAlgorithm::direct, root),
        "scatter dp s0"));
    ops.push_back(optimizer_step(s, 0, 0, layers));
  }
  return p;
}

const StrategyRegistrar kPsGatherScatterRegistrar{{
    {"ps-gather-scatter",
     "rank 0 gathers all gradients, averages them and scatters the mean (COS 598D task 2a)",
     {integer_param("server", 0, 0, 1e9, "rank of the parameter server")},
     data_parallel_check},
    StrategyLayout::data_parallel, build_ps_gather_scatter}};

}  // namespace

}  // namespace geotrain
