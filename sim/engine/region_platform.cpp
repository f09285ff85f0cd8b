// `regions` platform: star zone per region + FATPIPE WAN link per ordered region pair
// (see platform.hpp for the rule and when it is exact).
#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <algorithm>

#include "sim/engine/platform.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

namespace {


struct RegionZone {
  sg4::NetZone* zone = nullptr;
  simgrid::kernel::routing::NetPoint* gateway = nullptr;
};

void add_wan_links(const Topology& net, const std::vector<RegionZone>& zones,
                   const std::vector<int>& members, sg4::NetZone* root, Platform& p,
                   BandwidthProfiles& profiles) {
  const int r = net.region_count();
  for (int a = 0; a < r; ++a) {
    for (int b = 0; b < r; ++b) {
      if (a == b || members[static_cast<std::size_t>(a)] == 0 ||
          members[static_cast<std::size_t>(b)] == 0)
        continue;
      const Link& wan = net.inter_link(a, b);
      const Link& ia = net.intra_link(a);
      const Link& ib = net.intra_link(b);
      const double nic_delay_s = (ia.delay_s + ib.delay_s) / 2;
      if (wan.delay_s < nic_delay_s || wan.bandwidth_Bps > std::min(ia.bandwidth_Bps, ib.bandwidth_Bps))
        p.warnings.push_back(fmt::format(
            "regions {} -> {}: WAN delay {} s / bandwidth {} B/s cannot be matched exactly through "
            "NICs of delay {} s and bandwidth {} / {} B/s (the NICs bound it)",
            net.region_name(a), net.region_name(b), wan.delay_s, wan.bandwidth_Bps, nic_delay_s,
            ia.bandwidth_Bps, ib.bandwidth_Bps));
      auto* link = root->create_link(fmt::format("wan {}>{}", net.region_name(a), net.region_name(b)),
                                     wan.bandwidth_Bps)
                       ->set_latency(std::max(0.0, wan.delay_s - nic_delay_s))
                       ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE);
      profiles.wan_link(link, a, b);
      link->seal();
      const auto& za = zones[static_cast<std::size_t>(a)];
      const auto& zb = zones[static_cast<std::size_t>(b)];
      root->add_route(za.zone->get_netpoint(), zb.zone->get_netpoint(), za.gateway, zb.gateway,
                      {sg4::LinkInRoute(link)}, false);
    }
  }
}

}  // namespace

Platform build_region_platform(const Topology& net, BandwidthProfiles& profiles,
                               const PlatformOptions& options) {
  const int n = net.device_count();
  const int r = net.region_count();
  Platform p;
  p.kind = PlatformKind::regions;
  auto* root = sg4::create_full_zone("world");
  std::vector<RegionZone> zones(static_cast<std::size_t>(r));
  std::vector<int> members(static_cast<std::size_t>(r), 0);
  for (int d = 0; d < n; ++d) ++members[static_cast<std::size_t>(net.region_of(d))];
  for (int a = 0; a < r; ++a) {
    auto& z = zones[static_cast<std::size_t>(a)];
    z.zone = sg4::create_star_zone(fmt::format("region {}", net.region_name(a)));
    z.zone->set_parent(root);
    // The gateway has no links of its own: a flow leaving the region crosses only its NIC.
    z.gateway = z.zone->create_router(fmt::format("gw {}", net.region_name(a)));
  }
  p.host_of_device.resize(static_cast<std::size_t>(n));
  for (int d = 0; d < n; ++d) {
    const int a = net.region_of(d);
    auto* zone = zones[static_cast<std::size_t>(a)].zone;
    const Link& intra = net.intra_link(a);
    auto* host = zone->create_host(fmt::format("d{}", d), kHostSpeed)->seal();
    auto* nic = zone->create_split_duplex_link(fmt::format("nic d{}", d), intra.bandwidth_Bps);
    nic->set_latency(intra.delay_s / 2);
    profiles.nic_link(nic->get_link_up(), d);
    profiles.nic_link(nic->get_link_down(), d);
    nic->seal();
    zone->add_route(host->get_netpoint(), nullptr, nullptr, nullptr,
                    {sg4::LinkInRoute(nic, sg4::LinkInRoute::Direction::UP)}, true);
    p.host_of_device[static_cast<std::size_t>(d)] = host;
  }
  for (auto& z : zones) z.zone->seal();
  add_wan_links(net, zones, members, root, p, profiles);
  p.shared_cpu = add_shared_cpu(root, options);
  root->seal();
  return p;
}

}  // namespace geotrain::engine
