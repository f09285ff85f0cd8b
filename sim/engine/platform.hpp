#pragma once
// The SimGrid platform built in code from the scenario's effective network: one host per device.
//
// Rule (see README.md):
//  - `pairs`: one link per ORDERED device pair (its delay, its bandwidth), shared only by the
//    flows of that pair, like DT-FM's per-destination tc classes. Used for explicit matrices at
//    any size and for regional networks (all DT-FM cases) up to `pair_links_max_devices`.
//    Memory and build time grow as N^2 (~9 s and 3.4 GB at 2,048 hosts), hence the limit.
//  - `regions`: above it, regional networks become a star zone per region (a split-duplex NIC per
//    host carrying the region's internal delay/2 and bandwidth) joined by one FATPIPE WAN link
//    per ordered region pair (each flow capped separately, as per-destination shaping does)
//    whose latency is the pair's delay minus the two NIC halves. O(N + R^2) links.
//    A single flow sees exactly the pair's delay and bandwidth when the region's internal
//    bandwidth is >= its WAN bandwidths and the WAN delay >= the internal delays (true for every
//    DT-FM case and the city tables); otherwise the NIC bounds it and a warning is logged.
//    Unlike `pairs`, flows leaving one host to different peers share its NIC.
#include <string>
#include <vector>

#include "sim/engine/bandwidth_profiles.hpp"
#include "sim/topology/topology.hpp"

namespace simgrid::s4u {
class Host;
}

namespace geotrain::engine {

enum class PlatformKind { pairs, regions };
const char* to_string(PlatformKind k);

struct PlatformOptions {
  int pair_links_max_devices = 256;
};

struct Platform {
  PlatformKind kind = PlatformKind::pairs;
  std::vector<simgrid::s4u::Host*> host_of_device;
  std::vector<std::string> warnings;  // approximations the builder had to make
  std::vector<AppliedBandwidthChange> bandwidth_changes;  // network.bandwidth_changes as applied
};

// Which builder the rule picks for this network.
PlatformKind choose_platform(const Topology& network, const PlatformOptions& options);

// Creates the zones, hosts and links in the current SimGrid engine (configuration must be done),
// with the bandwidth profiles of `changes` (bandwidth_profiles.hpp) on the links they touch.
Platform build_platform(const Topology& network, const PlatformOptions& options,
                        const BandwidthSchedule& changes = {});

// The two builders (pair_platform.cpp, region_platform.cpp).
Platform build_pair_platform(const Topology& network, BandwidthProfiles& profiles);
Platform build_region_platform(const Topology& network, BandwidthProfiles& profiles);

}  // namespace geotrain::engine
