#include "sim/scheduler/scheduler.hpp"

#include <fmt/format.h>

#include "sim/common/did_you_mean.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scheduler/gcma_scheduler.hpp"
#include "sim/scheduler/random_scheduler.hpp"

namespace geotrain {

ScheduleSizes schedule_sizes(const Scenario& s) {
  ScheduleSizes z;
  const auto& params = s.strategy.params;
  if (!params.count("stages") || !params.count("replicas"))
    throw InputError(fmt::format("{}: strategy '{}' has no stages/replicas: the DT-FM scheduler places pipeline "
                                 "stages x data-parallel replicas (use e.g. strategy gpipe)",
                                 s.path.empty() ? s.name : s.path, s.strategy.name));
  z.stages = static_cast<int>(s.strategy.integer("stages"));
  z.replicas = static_cast<int>(s.strategy.integer("replicas"));
  z.gradient_bytes = s.scheduler.gradient_bytes > 0
                         ? s.scheduler.gradient_bytes
                         : gradient_params(s.model) * static_cast<double>(dtype_bytes(s.model.gradient_dtype)) / z.stages;
  z.activation_bytes = s.scheduler.activation_bytes > 0
                           ? s.scheduler.activation_bytes
                           : activation_bytes(s.model, s.training.global_batch / z.replicas);
  return z;
}

CostModel make_cost_model(const Scenario& s) {
  const ScheduleSizes z = schedule_sizes(s);
  return CostModel(s.effective_network(), z.stages, z.replicas, z.gradient_bytes, z.activation_bytes);
}

const std::vector<std::string>& scheduler_names() {
  static const std::vector<std::string> names{"gcma", "baseline", "random"};
  return names;
}

SearchResult run_scheduler(const CostModel& model, const std::string& name, const SearchOptions& options) {
  if (name == "gcma") return GcmaScheduler(model, GcmaScheduler::Gain::dtfm).run(options);
  if (name == "baseline") return GcmaScheduler(model, GcmaScheduler::Gain::baseline).run(options);
  if (name == "random") return RandomScheduler(model).run(options);
  const auto near = closest_name(name, scheduler_names());
  throw InputError(fmt::format("scheduler '{}' is unknown (known: {}){}", name, join_names(scheduler_names()),
                               near ? fmt::format("; did you mean '{}'?", *near) : std::string()));
}

Assignment schedule_assignment(const Scenario& s) {
  const CostModel model = make_cost_model(s);
  SearchOptions o;
  o.population = s.scheduler.population;
  o.trials = s.scheduler.trials;
  o.seed = s.seed;
  return run_scheduler(model, s.scheduler.name, o).assignment;
}

}  // namespace geotrain
