#include "sim/engine/platform.hpp"

namespace geotrain::engine {

const char* to_string(PlatformKind k) { return k == PlatformKind::pairs ? "pairs" : "regions"; }

PlatformKind choose_platform(const Topology& network, const PlatformOptions& options) {
  // A matrix has no region structure to exploit: its N x N figures are the platform.
  if (!network.is_regional()) return PlatformKind::pairs;
  return network.device_count() <= options.pair_links_max_devices ? PlatformKind::pairs
                                                                   : PlatformKind::regions;
}

Platform build_platform(const Topology& network, const PlatformOptions& options,
                        const BandwidthSchedule& changes) {
  BandwidthProfiles profiles(changes);
  Platform p = choose_platform(network, options) == PlatformKind::pairs
                   ? build_pair_platform(network, profiles)
                   : build_region_platform(network, profiles);
  if (p.kind == PlatformKind::regions)
    for (auto& w : profiles.regions_warnings()) p.warnings.push_back(std::move(w));
  p.bandwidth_changes = profiles.applied();
  return p;
}

}  // namespace geotrain::engine
