#pragma once
// Turns a scenario into the Program of its strategy. Every Program returned has passed
// validate_program().
//
// Strategies register themselves: each strategy file (ddp_allreduce.cpp, gpipe.cpp, ...) ends
// with one StrategyRegistrar that hands its parameter declarations to the scenario's catalog
// (sim/scenario/strategy_catalog.hpp) and its builder to build_program. Nothing central names a
// strategy (docs/adding-a-strategy.md).
#include <functional>

#include "sim/program/assignment.hpp"
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/strategy_catalog.hpp"

namespace geotrain {

// placement: which device runs which (stage, replica). nullptr = resolve it from the scenario's
// placement section (identity, random, file); placement kind `scheduler` must be resolved by the
// caller (the scheduler library sits above the strategies) and passed in.
Program build_program(const Scenario& scenario, const Assignment* placement = nullptr);

// How the strategy's ranks are laid out: data-parallel 1 stage x N replicas (N = participating
// devices), or a pipeline of strategy.stages x strategy.replicas.
enum class StrategyLayout { data_parallel, pipeline };

struct StrategyDefinition {
  StrategyDecl decl;  // name, summary, parameters, cross-field check
  StrategyLayout layout = StrategyLayout::data_parallel;
  // The Program of ONE iteration for a placement of the layout's shape.
  std::function<Program(const Scenario&, const Assignment&)> build;
  // Set when the emulator cannot run the strategy yet: why (copied into Program::not_emulated).
  std::string not_emulated = {};
};

// A static object of this type in a strategy's file registers the strategy before main.
class StrategyRegistrar {
 public:
  explicit StrategyRegistrar(StrategyDefinition definition);
};

}  // namespace geotrain
