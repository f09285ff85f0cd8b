#pragma once
// Measured AWS region-to-region figures used by DT-FM (one-way delay, bandwidth), including
// Singapore and Sydney for custom layouts. Source and table: docs/dtfm-cases.md.
#include <optional>
#include <string>
#include <vector>

#include "sim/topology/topology.hpp"

namespace geotrain {

// All city names the table knows, in a fixed order.
const std::vector<std::string>& known_cities();

// The link between two different cities (symmetric), if the table has it.
std::optional<Link> city_link(const std::string& a, const std::string& b);

}  // namespace geotrain
