#pragma once
// A real plan as JSON (`geotrain real plan --json --out FILE`): per host its ssh target,
// interface, ranks, sysctls, shaping commands for each delay choice, undo and worker launches;
// commands as argument lists (tool first), so a program can run them without a shell.
#include <nlohmann/json.hpp>

#include "real/real_plan.hpp"

namespace geotrain::real {

nlohmann::json real_plan_json(const RealPlan& plan);

}  // namespace geotrain::real
