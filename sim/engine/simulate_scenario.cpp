// simulate() with compute times from the scenario's ComputeModel (kept apart so tests with their
// own compute formulas do not need the device model).
#include "sim/engine/simulation.hpp"
#include "sim/workload/compute_model.hpp"

namespace geotrain::engine {

SimulationResult simulate(const Scenario& scenario, const Program& program,
                          const SimulationOptions& options) {
  const ComputeModel model(scenario);
  model.require_entries(program);  // a planned profile must time every op by its own entry
  return simulate(scenario, program, options,
                  [&model](const ComputeOp& op, int device, const ComputeSite& site) {
                    return model.seconds(op, device, site);
                  });
}

}  // namespace geotrain::engine
