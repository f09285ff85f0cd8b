#include "sim/scenario/scenario_bandwidth.hpp"

namespace geotrain {

BandwidthSchedule resolve_bandwidth_schedule(const Scenario& scenario) {
  return BandwidthSchedule(scenario.bandwidth_changes, scenario.effective_network());
}

}  // namespace geotrain
