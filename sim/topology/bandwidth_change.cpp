#include "sim/topology/bandwidth_change.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace geotrain {

bool BandwidthSelector::selects(const Topology& net, int src, int dst) const {
  switch (scope) {
    case Scope::all:
      return true;
    case Scope::regions: {
      const int a = net.region_of(src), b = net.region_of(dst);
      return (a == region_a && b == region_b) || (a == region_b && b == region_a);
    }
    case Scope::devices:
      return std::binary_search(devices.begin(), devices.end(), src) ||
             std::binary_search(devices.begin(), devices.end(), dst);
  }
  return false;
}

std::string BandwidthSelector::describe(const Topology& net) const {
  switch (scope) {
    case Scope::all:
      return "every link";
    case Scope::regions:
      if (region_a == region_b) return fmt::format("inside {}", net.region_name(region_a));
      return fmt::format("{} <-> {}", net.region_name(region_a), net.region_name(region_b));
    case Scope::devices:
      return fmt::format("devices {}", fmt::join(devices, " "));
  }
  return "";
}

}  // namespace geotrain
