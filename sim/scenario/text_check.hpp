#pragma once
// Every string of a scenario (keys and values, after --set overrides) is checked once, before
// binding, against the free-text rule of sim/common/text_rules.hpp: no control characters, no
// bidirectional overrides. Values that become names of files or namespaces have a stricter rule
// of their own (the scenario name, checked where it is read).
#include <yaml-cpp/yaml.h>

#include "sim/scenario/diagnostics.hpp"

namespace geotrain {

void check_scenario_text(const YAML::Node& root, Diagnostics& diag);

}  // namespace geotrain
