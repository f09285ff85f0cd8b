// `pairs` platform: a full zone with one link per ordered device pair (see platform.hpp).
#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include "sim/engine/platform.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {


Platform build_pair_platform(const Topology& network, BandwidthProfiles& profiles,
                             const PlatformOptions& options) {
  const int n = network.device_count();
  Platform p;
  p.kind = PlatformKind::pairs;
  auto* zone = sg4::create_full_zone("world");
  p.host_of_device.reserve(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d)
    p.host_of_device.push_back(zone->create_host(fmt::format("d{}", d), kHostSpeed)->seal());
  for (int s = 0; s < n; ++s) {
    for (int t = 0; t < n; ++t) {
      if (s == t) continue;
      const Link l = network.link(s, t);
      if (l.bandwidth_Bps <= 0) continue;  // "no link": a transfer over it fails with "no route"
      // A plain (SHARED) link used by one direction only: the flows of this ordered pair share
      // it, no other pair touches it.
      auto* link = zone->create_link(fmt::format("d{}>d{}", s, t), l.bandwidth_Bps)->set_latency(l.delay_s);
      profiles.pair_link(link, s, t);
      link->seal();
      zone->add_route(p.host_of_device[static_cast<std::size_t>(s)]->get_netpoint(),
                      p.host_of_device[static_cast<std::size_t>(t)]->get_netpoint(), nullptr,
                      nullptr, {sg4::LinkInRoute(link)}, false);
    }
  }
  p.shared_cpu = add_shared_cpu(zone, options);
  zone->seal();
  return p;
}

}  // namespace geotrain::engine
