#include "real/host_network.hpp"

#include <algorithm>

namespace geotrain::real {

bool HostLink::exact() const {
  return std::all_of(pairs.begin(), pairs.end(), [this](const RankLink& p) {
    return p.bandwidth_Bps == bandwidth_Bps && p.delay_s == delay_s;
  });
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

HostNetwork host_network(const Topology& net, const HostsFile& hosts) {
  HostNetwork out;
  out.hosts = static_cast<int>(hosts.hosts.size());
  out.links.resize(static_cast<std::size_t>(out.hosts * out.hosts));
  out.loopback.resize(static_cast<std::size_t>(out.hosts));
  for (int s = 0; s < out.hosts; ++s)
    for (int d = 0; d < out.hosts; ++d) {
      HostLink& l = out.links[static_cast<std::size_t>(s * out.hosts + d)];
      l.src_host = s, l.dst_host = d;
    }
  for (int h = 0; h < out.hosts; ++h)
    for (int a : hosts.hosts[static_cast<std::size_t>(h)].ranks)
      for (int d = 0; d < out.hosts; ++d)
        for (int b : hosts.hosts[static_cast<std::size_t>(d)].ranks) {
          if (a == b) continue;
          const RankLink p{a, b, net.delay_s(a, b), net.bandwidth_Bps(a, b)};
          if (d == h) out.loopback[static_cast<std::size_t>(h)].push_back(p);
          else out.links[static_cast<std::size_t>(h * out.hosts + d)].pairs.push_back(p);
        }
  for (auto& l : out.links) {
    if (l.pairs.empty()) continue;
    std::vector<double> delays;
    l.bandwidth_Bps = l.pairs.front().bandwidth_Bps;
    for (const auto& p : l.pairs) {
      delays.push_back(p.delay_s);
      l.bandwidth_Bps = std::min(l.bandwidth_Bps, p.bandwidth_Bps);
    }
    l.delay_s = median(delays);
  }
  return out;
}

}  // namespace geotrain::real
