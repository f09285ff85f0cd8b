#pragma once
// Sizes the parts of every butterfly all-reduce in a Program (sim/program/butterfly_parts.hpp):
// for each group one of whose collectives runs algorithm `butterfly`, each member's part
// follows `strategy.butterfly_parts` (hivemind, proportional or equal; equal where the strategy
// has no such parameter) from the member's bandwidth as hivemind's peers report it: here the
// mean, over the group's other members, of the slower direction of the scenario's link between
// the two (what a peer would measure talking to the others).
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

void assign_butterfly_parts(Program& program, const Scenario& scenario);

}  // namespace geotrain
