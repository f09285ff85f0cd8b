#include "sim/engine/route_table.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <limits>

namespace geotrain::engine {

const RouteInfo& RouteTable::route(int src_device, int dst_device) {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src_device)) << 32) |
                            static_cast<std::uint32_t>(dst_device);
  auto it = routes_.find(key);
  if (it != routes_.end()) {
    if (live_) {
      it->second.bandwidth_Bps = std::numeric_limits<double>::infinity();
      for (int l : it->second.links)
        it->second.bandwidth_Bps = std::min(it->second.bandwidth_Bps,
                                            links_[static_cast<std::size_t>(l)]->get_bandwidth());
    }
    return it->second;
  }
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  hosts_.at(static_cast<std::size_t>(src_device))
      ->route_to(hosts_.at(static_cast<std::size_t>(dst_device)), links, &latency);
  RouteInfo info;
  info.latency_s = latency;
  info.bandwidth_Bps = std::numeric_limits<double>::infinity();
  for (const auto* l : links) {
    info.bandwidth_Bps = std::min(info.bandwidth_Bps, l->get_bandwidth());
    info.links.push_back(link_index(l));
  }
  return routes_.emplace(key, std::move(info)).first->second;
}

void RouteTable::count_bytes(int src_device, int dst_device, double bytes) {
  if (bytes <= 0) return;
  for (int l : route(src_device, dst_device).links) bytes_[static_cast<std::size_t>(l)] += bytes;
}

void RouteTable::count_link_bytes(const simgrid::s4u::Link* link, double bytes) {
  if (bytes > 0) bytes_[static_cast<std::size_t>(link_index(link))] += bytes;
}

int RouteTable::link_index(const simgrid::s4u::Link* link) {
  auto it = index_.find(link);
  if (it != index_.end()) return it->second;
  const int i = static_cast<int>(names_.size());
  index_.emplace(link, i);
  names_.push_back(link->get_name());
  links_.push_back(link);
  bytes_.push_back(0);
  return i;
}

}  // namespace geotrain::engine
