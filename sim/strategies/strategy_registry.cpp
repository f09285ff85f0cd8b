#include "sim/strategies/strategy_registry.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "sim/common/error.hpp"
#include "sim/program/program_validation.hpp"
#include "sim/strategies/placement.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/strategies/strategy_catalog.hpp"

namespace geotrain {

namespace {

using Builder = std::function<Program(const Scenario&, const Assignment&)>;

struct Entry {
  Builder build;
  bool pipeline;  // S x D placement from the strategy; otherwise 1 x N
};

const std::map<std::string, Entry>& builders() {
  static const std::map<std::string, Entry> table{
      {"ddp-allreduce", {build_ddp_allreduce, false}},
      {"ps-gather-scatter", {build_ps_gather_scatter, false}},
      {"ps-sharded", {build_ps_sharded, false}},
      {"ddp-bucketed", {build_ddp_bucketed, false}},
      {"gpipe", {build_gpipe, true}},
      {"diloco", {build_diloco, false}},
      {"adpsgd", {build_adpsgd, false}},
      {"sdpipe-preduce", {build_sdpipe_preduce, true}},
      {"hetpipe", {build_hetpipe, true}},
  };
  return table;
}

}  // namespace

Program build_program(const Scenario& scenario, const Assignment* placement) {
  const auto it = builders().find(scenario.strategy.name);
  if (it == builders().end()) {
    std::string known;
    for (const auto& [name, entry] : builders()) known += (known.empty() ? "" : ", ") + name;
    throw InputError(fmt::format("{}: strategy.name = '{}': no Program builder (known: {})",
                                 scenario.path, scenario.strategy.name, known));
  }
  const int stages =
      it->second.pipeline ? static_cast<int>(scenario.strategy.integer("stages")) : 1;
  const int replicas = it->second.pipeline ? static_cast<int>(scenario.strategy.integer("replicas"))
                                           : participating_devices(scenario);
  const Assignment resolved =
      placement ? *placement : resolve_placement(scenario, stages, replicas);
  if (resolved.stages != stages || resolved.replicas != replicas)
    throw InputError(fmt::format(
        "{}: the placement has {} stages x {} replicas, strategy {} needs {} x {}", scenario.path,
        resolved.stages, resolved.replicas, scenario.strategy.name, stages, replicas));
  Program program = it->second.build(scenario, resolved);
  validate_program(program);
  return program;
}

}  // namespace geotrain
