#pragma once
// network.measured: region-to-region links from a table of measurements
// (sim/scenario/measured_table.hpp; bundled tables: scenarios/networks/README.md).
//   devices: {groups: [{region: aws:us-east-1, count: 8}, {region: gcp:europe-west4, count: 8}]}
//   network:
//     measured: skyplane_2022          # a bundled table's name, or a path ending in .csv / holding
//                                      # a '/', relative to the scenario's folder
//     measured_fill: nearest           # none (default): a pair the table lacks is an error
//     measured_intra: {delay: 0.25ms, bandwidth: 100Gbps}   # links inside a region
// Inside a region: measured_intra when given, else the table's row (r, r) when it has one, else
// kMeasuredIntraDefault. Filled pairs are listed in Scenario::filled_pairs (`geotrain check`).
#include "sim/scenario/sections.hpp"

namespace geotrain::sections {

// 0.25 ms one-way (a cross-zone round trip is near 0.5 ms) and 100 Gbit/s (the network of
// current cloud GPU instances, and above every figure of the bundled table, so the NICs of the
// regions platform never bound a measured WAN link).
inline constexpr Link kMeasuredIntraDefault{0.25e-3, 100e9 / 8};

// Reads measured, measured_fill and measured_intra of the network section; builds the network
// only when `build` (measured is the one network kind given).
void parse_measured(Context& ctx, YamlSection& network, const DeviceRegions& regions, Scenario& out,
                    bool build);

}  // namespace geotrain::sections
