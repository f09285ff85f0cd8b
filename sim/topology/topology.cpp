#include "sim/topology/topology.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace geotrain {

Topology Topology::regional(std::vector<std::string> regions, std::vector<int> region_of_device,
                            std::vector<Link> intra, std::vector<Link> inter) {
  const std::size_t r = regions.size();
  if (intra.size() != r || inter.size() != r * r)
    throw std::invalid_argument("Topology::regional: link tables do not match the region count");
  for (int region : region_of_device) {
    if (region < 0 || static_cast<std::size_t>(region) >= r)
      throw std::invalid_argument("Topology::regional: device in an unknown region");
  }
  Topology t;
  t.regional_ = true;
  t.regions_ = std::move(regions);
  t.region_of_device_ = std::move(region_of_device);
  t.intra_ = std::move(intra);
  t.inter_ = std::move(inter);
  return t;
}

Topology Topology::matrix(std::vector<std::string> regions, std::vector<int> region_of_device,
                          std::vector<double> delay_s, std::vector<double> bandwidth_Bps) {
  const std::size_t n = region_of_device.size();
  if (delay_s.size() != n * n || bandwidth_Bps.size() != n * n)
    throw std::invalid_argument("Topology::matrix: matrices are not N x N");
  Topology t;
  t.regional_ = false;
  t.regions_ = std::move(regions);
  t.region_of_device_ = std::move(region_of_device);
  t.delay_s_ = std::move(delay_s);
  t.bandwidth_Bps_ = std::move(bandwidth_Bps);
  return t;
}

Link Topology::link(int src, int dst) const {
  if (src == dst) return {0, 0};
  if (!regional_) {
    const std::size_t k = static_cast<std::size_t>(src) * region_of_device_.size() +
                          static_cast<std::size_t>(dst);
    return {delay_s_[k], bandwidth_Bps_[k]};
  }
  const int r1 = region_of(src);
  const int r2 = region_of(dst);
  return r1 == r2 ? intra_[static_cast<std::size_t>(r1)] : inter_link(r1, r2);
}

const Link& Topology::inter_link(int r1, int r2) const {
  return inter_.at(static_cast<std::size_t>(r1) * regions_.size() + static_cast<std::size_t>(r2));
}

Topology Topology::scaled(double bandwidth_scale, double delay_scale) const {
  Topology t = *this;
  auto scale = [&](Link& l) {
    l.delay_s *= delay_scale;
    l.bandwidth_Bps *= bandwidth_scale;
  };
  std::for_each(t.intra_.begin(), t.intra_.end(), scale);
  std::for_each(t.inter_.begin(), t.inter_.end(), scale);
  for (auto& d : t.delay_s_) d *= delay_scale;
  for (auto& b : t.bandwidth_Bps_) b *= bandwidth_scale;
  return t;
}

Topology::Stats Topology::stats() const {
  Stats s{std::numeric_limits<double>::infinity(), 0, std::numeric_limits<double>::infinity(), 0};
  auto add = [&](const Link& l) {
    s.min_delay_s = std::min(s.min_delay_s, l.delay_s);
    s.max_delay_s = std::max(s.max_delay_s, l.delay_s);
    s.min_bandwidth_Bps = std::min(s.min_bandwidth_Bps, l.bandwidth_Bps);
    s.max_bandwidth_Bps = std::max(s.max_bandwidth_Bps, l.bandwidth_Bps);
  };
  if (regional_) {
    // Only links that some pair of devices actually uses.
    std::vector<int> members(regions_.size(), 0);
    for (int r : region_of_device_) ++members[static_cast<std::size_t>(r)];
    for (std::size_t a = 0; a < regions_.size(); ++a) {
      if (members[a] > 1) add(intra_[a]);
      for (std::size_t b = 0; b < regions_.size(); ++b)
        if (a != b && members[a] > 0 && members[b] > 0) add(inter_[a * regions_.size() + b]);
    }
  } else {
    const int n = device_count();
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j) add(link(i, j));
  }
  if (s.max_bandwidth_Bps == 0) s = {0, 0, 0, 0};  // a single device has no links
  return s;
}

}  // namespace geotrain
