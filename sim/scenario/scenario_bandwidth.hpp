#pragma once
// THE resolution of `network.bandwidth_changes` both executors call (the simulator's bandwidth
// profiles, the emulator's timed tc changes): the scenario's changes on its effective network.
// It lives here rather than next to BandwidthSchedule because sim/topology sits below the
// scenario and must not know the Scenario type.
#include "sim/scenario/scenario.hpp"
#include "sim/topology/bandwidth_schedule.hpp"

namespace geotrain {

BandwidthSchedule resolve_bandwidth_schedule(const Scenario& scenario);

}  // namespace geotrain
