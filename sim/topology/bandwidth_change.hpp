#pragma once
// One entry of `network.bandwidth_changes` as the scenario writes it (after validation): from
// `at_s` on, the links it selects carry `factor` x their configured bandwidth (already scaled by
// emulation.bandwidth_scale), until a later entry selects them again. A seeded entry
// (every_s > 0) instead draws a factor uniformly in [factor_min, factor_max] at 0, every,
// 2 every, ... before until_s, and returns to 1 at until_s. bandwidth_schedule.hpp turns the
// list into the dated changes both executors apply.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/topology/topology.hpp"

namespace geotrain {

// Which ordered device pairs an entry affects.
struct BandwidthSelector {
  enum class Scope { all, regions, devices };
  Scope scope = Scope::all;
  int region_a = -1, region_b = -1;  // Scope::regions: both directions between them (a == b: inside a)
  std::vector<int> devices;          // Scope::devices: every link to or from one of these, sorted

  bool selects(const Topology& net, int src, int dst) const;
  // "every link", "Oregon <-> Tokyo", "devices 3 4"
  std::string describe(const Topology& net) const;
};

struct BandwidthChangeSpec {
  BandwidthSelector select;
  double at_s = 0;
  double factor = 1;
  // Seeded schedule when every_s > 0 (at_s and factor unused).
  double every_s = 0;
  double until_s = 0;
  double factor_min = 1, factor_max = 1;
  std::uint64_t seed = 1;
  int line = 0;  // in the scenario file (0: built in code)
};

}  // namespace geotrain
