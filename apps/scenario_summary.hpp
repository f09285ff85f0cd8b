#pragma once
// The normalized human summary `geotrain check` prints (devices, regions, links, model,
// parallelism), shared with other commands that want to echo what they run.
#include <string>

#include "sim/scenario/scenario.hpp"

namespace geotrain::cli {

std::string scenario_summary(const Scenario& s);

}  // namespace geotrain::cli
