#pragma once
// The scenario's links seen per host. A host shapes its interface once per destination HOST, so
// when hosts run several ranks the per-rank-pair links of the scenario collapse:
//  - ranks on one host talk over loopback: neither delayed nor shaped (`loopback`);
//  - all rank pairs between two hosts share one HTB class and one delay. The class gets the
//    minimum of their bandwidths (no pair is faster than the scenario says) and the delay is
//    their median (half the pairs see more, half less, none off by more than the spread);
//    `links` keeps every pair so a plan can list the ones shaped with another value.
#include <vector>

#include "real/hosts_file.hpp"
#include "sim/topology/topology.hpp"

namespace geotrain::real {

struct RankLink {
  int src = 0, dst = 0;
  double delay_s = 0, bandwidth_Bps = 0;
};

struct HostLink {
  int src_host = 0, dst_host = 0;
  double bandwidth_Bps = 0;  // minimum over `pairs`
  double delay_s = 0;        // median over `pairs`
  std::vector<RankLink> pairs;
  // True when every pair has the shaped values, i.e. per-host shaping reproduces them exactly.
  bool exact() const;
};

struct HostNetwork {
  int hosts = 0;
  std::vector<HostLink> links;                 // [src_host * hosts + dst_host]; diagonal unused
  std::vector<std::vector<RankLink>> loopback; // per host: its ranks' links to each other
  const HostLink& link(int src_host, int dst_host) const {
    return links.at(static_cast<std::size_t>(src_host * hosts + dst_host));
  }
};

HostNetwork host_network(const Topology& net, const HostsFile& hosts);

// The median of values (the mean of the two middle ones for an even count); 0 when empty.
double median(std::vector<double> values);

}  // namespace geotrain::real
