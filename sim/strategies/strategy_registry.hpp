#pragma once
// Turns a scenario into the Program of its strategy (one builder file per strategy, e.g.
// ddp_allreduce.cpp, gpipe.cpp). Every Program returned has passed validate_program().
#include "sim/program/assignment.hpp"
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

// placement: which device runs which (stage, replica). nullptr = resolve it from the scenario's
// placement section (identity, random, file); placement kind `scheduler` must be resolved by the
// caller (the scheduler library sits above the core) and passed in.
Program build_program(const Scenario& scenario, const Assignment* placement = nullptr);

}  // namespace geotrain
