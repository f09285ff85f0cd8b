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

// Two V100s, device 1 three times slower, gpt-tiny (4 layers), timed by the profile `profile`
// under simulation.compute_variance `variance` (the compute sampler and steps tests).
inline Scenario profiled_scenario(const std::string& profile, const std::string& variance, int seed = 1) {
  const std::string text = fmt::format(
      "seed: {}\n"
      "devices: {{count: 2, profile: V100, regions: [lab], overrides: [{{ids: [1], slowdown: "
      "3}}]}}\n"
      "network: {{regions: {{intra: {{delay: 5ms, bandwidth: 2Gbps}}}}}}\n"
      "model: {{preset: gpt-tiny}}\n"
      "strategy: {{name: ddp-allreduce}}\n"
      "simulation: {{compute_profile: {}, compute_variance: {}}}\n",
      seed, profile, variance);
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
