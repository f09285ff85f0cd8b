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

  const RouteInfo& route(int src_device, int dst_device);
  // Adds `bytes` to every link of the route src -> dst.
  void count_bytes(int src_device, int dst_device, double bytes);

  const std::vector<std::string>& link_names() const { return names_; }
  const std::vector<double>& link_bytes() const { return bytes_; }

 private:
  int link_index(const simgrid::s4u::Link* link);

  std::vector<simgrid::s4u::Host*> hosts_;
  std::unordered_map<std::uint64_t, RouteInfo> routes_;
  std::unordered_map<const simgrid::s4u::Link*, int> index_;
  std::vector<std::string> names_;
  std::vector<double> bytes_;
};

}  // namespace geotrain::engine
