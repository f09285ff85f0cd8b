#pragma once
// Small helpers for the Program tests: scenarios from text, op queries.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace geotrain::test {

inline const std::string kSource = GEOTRAIN_SOURCE_DIR;

// N devices on a regions network; `strategy` and `extra` are YAML flow/block text.
inline Scenario scenario_with(int devices, const std::string& strategy,
                              const std::string& model = "gpt-mini",
                              const std::string& extra = "") {
  const std::string text = fmt::format(
      "devices: {{count: {}, profile: V100, regions: [lab]}}\n"
      "network: {{regions: {{intra: {{delay: 5ms, bandwidth: 2Gbps}}}}}}\n"
      "model: {{preset: {}}}\n"
      "strategy: {}\n{}",
      devices, model, strategy, extra);
  return parse_scenario(text, "test.yaml", kSource + "/scenarios/examples");
}

inline std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Labels of a rank's ops, in order.
inline std::vector<std::string> labels(const Program& p, int rank) {
  std::vector<std::string> out;
  for (const auto& op : p.ranks.at(static_cast<std::size_t>(rank))) out.push_back(op.label);
  return out;
}

}  // namespace geotrain::test
