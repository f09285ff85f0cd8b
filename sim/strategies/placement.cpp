#include "sim/strategies/placement.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/scenario/strategy_catalog.hpp"

namespace geotrain {

Assignment resolve_placement(const Scenario& scenario, int stages, int replicas) {
  const int devices = participating_devices(scenario);
  if (stages < 1 || replicas < 1 || stages * replicas != devices)
    throw InputError(
        fmt::format("{}: placement: {} stages x {} replicas does not cover the {} participating "
                    "devices (expected stages x replicas = {})",
                    scenario.path, stages, replicas, devices, devices));
  const PlacementSpec& p = scenario.placement;
  switch (p.kind) {
    case PlacementKind::identity:
      return identity_assignment(stages, replicas);
    case PlacementKind::random:
      return random_assignment(stages, replicas, p.seed);
    case PlacementKind::file:
      return read_assignment(p.file, stages, replicas, devices);
    case PlacementKind::scheduler:
      break;
  }
  throw InputError(
      fmt::format("{}: placement.kind = scheduler: run the scheduler first and pass its "
                  "assignment (geotrain simulate does; library callers use the scheduler "
                  "library, or write it with `geotrain schedule` and use kind: file)",
                  scenario.path));
}

}  // namespace geotrain
