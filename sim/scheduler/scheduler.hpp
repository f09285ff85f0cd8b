#pragma once
// Entry points of geotrain_sched: the cost model a scenario implies, the schedulers by name, and
// the placement `simulate`/`emulate` use when a scenario says `placement: {kind: scheduler}`.
#include <string>
#include <vector>

#include "sim/program/assignment.hpp"
#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/search.hpp"

namespace geotrain {

struct Scenario;

// Workload sizes of the cost model, derived as DT-FM does unless the scenario overrides them:
//   gradient_bytes   = gradient parameters x bytes of the gradient dtype / stages
//   activation_bytes = activation bytes of global_batch / replicas sequences
struct ScheduleSizes {
  int stages = 0;
  int replicas = 0;
  double gradient_bytes = 0;
  double activation_bytes = 0;
};
ScheduleSizes schedule_sizes(const Scenario& s);
CostModel make_cost_model(const Scenario& s);

// gcma, baseline, random.
const std::vector<std::string>& scheduler_names();
SearchResult run_scheduler(const CostModel& model, const std::string& name, const SearchOptions& options);

// Runs the scenario's scheduler (scenario.scheduler: name, population, trials; seed = scenario
// seed) and returns the best placement.
Assignment schedule_assignment(const Scenario& s);

}  // namespace geotrain
