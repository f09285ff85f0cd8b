#include "sim/strategies/strategy_registry.hpp"

#include <fmt/format.h>

#include <map>
#include <string>

#include "sim/common/error.hpp"
#include "sim/program/program_validation.hpp"
#include "sim/strategies/butterfly_groups.hpp"
#include "sim/strategies/placement.hpp"

namespace geotrain {

namespace {

struct Entry {
  StrategyLayout layout;
  std::function<Program(const Scenario&, const Assignment&)> build;
  std::string not_emulated;
};

// A function-local static: registrars in other files run during static initialization, in an
// order the language leaves open.
std::map<std::string, Entry>& builders() {
  static std::map<std::string, Entry> table;
  return table;
}

}  // namespace

StrategyRegistrar::StrategyRegistrar(StrategyDefinition definition) {
  const std::string name = definition.decl.name;
  add_strategy_decl(std::move(definition.decl));
  builders().emplace(name, Entry{definition.layout, std::move(definition.build), std::move(definition.not_emulated)});
}

Program build_program(const Scenario& scenario, const Assignment* placement) {
  const auto it = builders().find(scenario.strategy.name);
  if (it == builders().end()) {
    std::string known;
    for (const auto& [name, entry] : builders()) known += (known.empty() ? "" : ", ") + name;
    throw InputError(fmt::format("{}: strategy.name = '{}': no Program builder (known: {})",
                                 scenario.path, scenario.strategy.name, known));
  }
  const bool pipeline = it->second.layout == StrategyLayout::pipeline;
  const int stages = pipeline ? static_cast<int>(scenario.strategy.integer("stages")) : 1;
  const int replicas = pipeline ? static_cast<int>(scenario.strategy.integer("replicas"))
                                : participating_devices(scenario);
  const Assignment resolved =
      placement ? *placement : resolve_placement(scenario, stages, replicas);
  if (resolved.stages != stages || resolved.replicas != replicas)
    throw InputError(fmt::format(
        "{}: the placement has {} stages x {} replicas, strategy {} needs {} x {}", scenario.path,
        resolved.stages, resolved.replicas, scenario.strategy.name, stages, replicas));
  Program program = it->second.build(scenario, resolved);
  assign_butterfly_parts(program, scenario);
  program.not_emulated = it->second.not_emulated;
  validate_program(program);
  return program;
}

}  // namespace geotrain
