#include "sim/engine/platform.hpp"

#include <simgrid/s4u.hpp>

namespace geotrain::engine {

const char* to_string(PlatformKind k) { return k == PlatformKind::pairs ? "pairs" : "regions"; }

PlatformKind choose_platform(const Topology& network, const PlatformOptions& options) {
  // A matrix has no region structure to exploit: its N x N figures are the platform.
  if (!network.is_regional()) return PlatformKind::pairs;
  if (options.forced) return *options.forced;
  return network.device_count() <= options.pair_links_max_devices ? PlatformKind::pairs
                                                                   : PlatformKind::regions;
}

Platform build_platform(const Topology& network, const PlatformOptions& options,
                        const BandwidthSchedule& changes) {
  BandwidthProfiles profiles(changes);
  Platform p = choose_platform(network, options) == PlatformKind::pairs
                   ? build_pair_platform(network, profiles, options)
                   : build_region_platform(network, profiles, options);
  if (p.kind == PlatformKind::regions)
    for (auto& w : profiles.regions_warnings()) p.warnings.push_back(std::move(w));
  p.bandwidth_changes = profiles.applied();
  return p;
}

simgrid::s4u::Host* add_shared_cpu(simgrid::s4u::NetZone* zone, const PlatformOptions& options) {
  const int cores = options.shared_cores;
  if (cores <= 0) return nullptr;
  const double available = 1 - options.background_cores / cores;  // the loader keeps b < n
  return zone->create_host("shared cpu", kCoreFlops * available)->set_core_count(cores)->seal();
}

}  // namespace geotrain::engine
