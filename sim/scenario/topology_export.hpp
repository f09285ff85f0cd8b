#pragma once
// The effective per-pair network as files a user or a plot can read:
//   JSON {"devices":[{"id":0,"region":"Oregon","profile":"V100"},...],
//         "delay_ms":[[...]], "bandwidth_Gbps":[[...]]}     (N x N, diagonal 0)
//   CSV  src,dst,src_region,dst_region,delay_ms,bandwidth_Gbps   (one row per ordered pair)
#include <ostream>

#include "sim/scenario/scenario.hpp"

namespace geotrain {

void write_topology_json(const Scenario& s, const Topology& t, std::ostream& out);
void write_topology_csv(const Scenario& s, const Topology& t, std::ostream& out);

}  // namespace geotrain
