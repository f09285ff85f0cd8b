#pragma once
// The SimGrid platform built in code from the scenario's effective network: one host per device.
//
// Rule (see README.md; `simulation.platform` overrides it):
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
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/bandwidth_profiles.hpp"
#include "sim/topology/topology.hpp"

namespace simgrid::s4u {
class Host;
class NetZone;
}

namespace geotrain::engine {

enum class PlatformKind { pairs, regions };
const char* to_string(PlatformKind k);

// Compute is modelled as sleeps of ComputeModel::seconds (or runs on the shared host), so the
// devices' host speed is never used.
inline constexpr double kHostSpeed = 1e9;

struct PlatformOptions {
  int pair_links_max_devices = 256;
  // simulation.platform: unset picks by the rule above; set, that platform whatever the size
  // (regions needs a regional network: the scenario loader checks).
  std::optional<PlatformKind> forced;
  // simulation.host_cores: > 0 adds one host with that many cores on which every rank's compute
  // runs (the emulator's single machine, docs/simulator-models.md "host cores").
  int shared_cores = 0;
  double background_cores = 0;  // of those, kept busy by other work: each core runs at 1 - b / n
};

// Speed of a core of the shared host: a Compute op of t CPU seconds is an execution of
// t x kCoreFlops on it (any unit works; this one keeps SimGrid's work precision far below 1 us).
constexpr double kCoreFlops = 1e9;

struct Platform {
  PlatformKind kind = PlatformKind::pairs;
  std::vector<simgrid::s4u::Host*> host_of_device;
  simgrid::s4u::Host* shared_cpu = nullptr;  // set when PlatformOptions::shared_cores > 0
  std::vector<std::string> warnings;  // approximations the builder had to make
  std::vector<AppliedBandwidthChange> bandwidth_changes;  // network.bandwidth_changes as applied
};

// Which builder the rule picks for this network.
PlatformKind choose_platform(const Topology& network, const PlatformOptions& options);

// Creates the zones, hosts and links in the current SimGrid engine (configuration must be done),
// with the bandwidth profiles of `changes` (bandwidth_profiles.hpp) on the links they touch.
Platform build_platform(const Topology& network, const PlatformOptions& options,
                        const BandwidthSchedule& changes = {});

// The two builders (pair_platform.cpp, region_platform.cpp); both add the shared host to their
// top zone.
Platform build_pair_platform(const Topology& network, BandwidthProfiles& profiles, const PlatformOptions& options);
Platform build_region_platform(const Topology& network, BandwidthProfiles& profiles, const PlatformOptions& options);

// The shared host of PlatformOptions::shared_cores in `zone` (unsealed), or nullptr for 0: a
// background load of b cores slows every core to 1 - b / n of its speed (spread evenly); a
// sequential execution uses one core at most, and more executions than cores share them equally
// (SimGrid's CPU model), as ranks' threads do under the Linux scheduler.
simgrid::s4u::Host* add_shared_cpu(simgrid::s4u::NetZone* zone, const PlatformOptions& options);

}  // namespace geotrain::engine
