#pragma once
// network.matrix: explicit N x N delay and bandwidth, inline or from CSV files.
//   matrix:
//     delay: [[0, 10ms], [10ms, 0]]       # or a CSV file name, resolved next to the scenario
//     bandwidth: bw.csv
//     units: {delay: ms, bandwidth: Gbps}  # for cells written as bare numbers
//     symmetric: true                      # default: asymmetric matrices are an error
// A cell that is empty, '-' or null means "no direct link": such pairs are routed over the
// shortest-delay path of direct links (Boost.Graph), with the path's bottleneck bandwidth.
#include "sim/scenario/sections.hpp"

namespace geotrain::sections {

void parse_matrix(Context& ctx, YamlSection section, const DeviceRegions& regions, Scenario& out);

}  // namespace geotrain::sections
