#pragma once
// Route facts between two devices as the built platform has them (latency sum, bottleneck
// bandwidth, links), cached per ordered pair. Used to time the aggregated ring's steps and to
// count bytes per link.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace simgrid::s4u {
class Host;
class Link;
}  // namespace simgrid::s4u

namespace geotrain::engine {

struct RouteInfo {
  double latency_s = 0;
  double bandwidth_Bps = 0;           // smallest link bandwidth on the route
  std::vector<int> links;             // indices into RouteTable::link_names()
};

class RouteTable {
 public:
  explicit RouteTable(std::vector<simgrid::s4u::Host*> host_of_device)
      : hosts_(std::move(host_of_device)) {}

  // With live bandwidth (network.bandwidth_changes), bandwidth_Bps is re-read from the links
  // at every call: their profiles change it during the run.
  const RouteInfo& route(int src_device, int dst_device);
  void set_live_bandwidth(bool live) { live_ = live; }
  // Adds `bytes` to every link of the route src -> dst.
  void count_bytes(int src_device, int dst_device, double bytes);
  // Adds `bytes` to one link (aggregated forms that count per link, not per route).
  void count_link_bytes(const simgrid::s4u::Link* link, double bytes);

  const std::vector<std::string>& link_names() const { return names_; }
  const std::vector<double>& link_bytes() const { return bytes_; }

 private:
  int link_index(const simgrid::s4u::Link* link);

  std::vector<simgrid::s4u::Host*> hosts_;
  std::unordered_map<std::uint64_t, RouteInfo> routes_;
  std::unordered_map<const simgrid::s4u::Link*, int> index_;
  std::vector<std::string> names_;
  std::vector<const simgrid::s4u::Link*> links_;
  bool live_ = false;
  std::vector<double> bytes_;
};

}  // namespace geotrain::engine
