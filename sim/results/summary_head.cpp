#include "sim/results/summary_head.hpp"

namespace geotrain::results {

nlohmann::ordered_json summary_head(const std::string& executor, const std::string& scenario,
                                    const std::string& strategy) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-" + executor + "-summary";
  j["version"] = 1;
  j["scenario"] = scenario;
  j["strategy"] = strategy;
  return j;
}

void add_workload_figures(nlohmann::ordered_json& summary, const Program& program) {
  summary["tokens_per_iteration"] = program.tokens_per_iteration;
  summary["sequences_per_iteration"] = program.sequences_per_iteration;
  summary["model_flops_per_iteration"] = program.model_flops_per_iteration;
}

nlohmann::ordered_json rank_entry(const Program& program, int rank) {
  return {{"rank", rank}, {"device", program.device_of_rank.at(static_cast<std::size_t>(rank))}};
}

}  // namespace geotrain::results
