#pragma once
// The effective network between devices: for every ordered pair (src, dst) a one-way delay and a
// bandwidth, the way DT-FM shapes each destination with its own tc class.
//
// Two representations share one interface:
//  - regional: devices belong to regions; a link inside a region and one per region pair. Memory
//    is O(devices + regions^2), so 10,000+ devices never build an N x N matrix. All DT-FM cases
//    are regional (instances, sites, cities are regions).
//  - matrix: explicit N x N delay and bandwidth, for small custom topologies.
#include <string>
#include <vector>

namespace geotrain {

struct Link {
  double delay_s = 0;        // one-way
  double bandwidth_Bps = 0;  // bytes per second; 0 means "no link" (the diagonal)
};

class Topology {
 public:
  // regions: names; region_of_device[i] in [0, regions); intra[r]; inter[r1 * R + r2] (r1 != r2).
  static Topology regional(std::vector<std::string> regions, std::vector<int> region_of_device,
                           std::vector<Link> intra, std::vector<Link> inter);
  // Row-major N x N matrices; the diagonal is ignored. Regions only label devices here.
  static Topology matrix(std::vector<std::string> regions, std::vector<int> region_of_device,
                         std::vector<double> delay_s, std::vector<double> bandwidth_Bps);

  int device_count() const { return static_cast<int>(region_of_device_.size()); }
  bool is_regional() const { return regional_; }
  Link link(int src, int dst) const;
  double delay_s(int src, int dst) const { return link(src, dst).delay_s; }
  double bandwidth_Bps(int src, int dst) const { return link(src, dst).bandwidth_Bps; }

  int region_count() const { return static_cast<int>(regions_.size()); }
  int region_of(int device) const { return region_of_device_.at(static_cast<std::size_t>(device)); }
  const std::string& region_name(int region) const { return regions_.at(static_cast<std::size_t>(region)); }
  const std::vector<std::string>& region_names() const { return regions_; }
  // Regional topologies only.
  const Link& intra_link(int region) const { return intra_.at(static_cast<std::size_t>(region)); }
  const Link& inter_link(int r1, int r2) const;

  // Every bandwidth multiplied by bandwidth_scale, every delay by delay_scale (emulation scales
  // apply to simulate and emulate alike, so both see the same network).
  Topology scaled(double bandwidth_scale, double delay_scale) const;

  // Statistics over ordered pairs i != j (sampled by region pairs when regional).
  struct Stats {
    double min_delay_s, max_delay_s, min_bandwidth_Bps, max_bandwidth_Bps;
  };
  Stats stats() const;

 private:
  Topology() = default;
  bool regional_ = true;
  std::vector<std::string> regions_;
  std::vector<int> region_of_device_;
  std::vector<Link> intra_;
  std::vector<Link> inter_;
  std::vector<double> delay_s_;
  std::vector<double> bandwidth_Bps_;
};

}  // namespace geotrain
