// network: exactly one of a DT-FM preset, a regions model, an explicit matrix or a table of
// measured links (measured_network.hpp).
//   network: {case: 5, intra_delay: 5ms}
//   network: {regions: {intra: {delay: 5ms, bandwidth: 2Gbps},
//                       pairs: [{between: [Oregon, Tokyo], delay: 96ms, bandwidth: 0.523Gbps}]}}
//   network: {matrix: {delay: [[0, 10ms], [10ms, 0]], bandwidth: matrix_bw.csv}}
//   network: {measured: skyplane_2022, measured_fill: nearest}
// Common keys: delays_are (one-way | rtt), tcp_buffer (socket buffer size, default 64MiB),
// bandwidth_changes (bandwidth_changes_section.cpp).
#include <fmt/format.h>

#include "sim/common/did_you_mean.hpp"
#include "sim/scenario/matrix_reader.hpp"
#include "sim/scenario/measured_network.hpp"
#include "sim/scenario/sections.hpp"
#include "sim/topology/city_table.hpp"
#include "sim/topology/dtfm_cases.hpp"

namespace geotrain::sections {

namespace {

// Region names in first-seen order and each device's region index.
void index_regions(const std::vector<std::string>& names_of_devices,
                   std::vector<std::string>& names, std::vector<int>& region_of) {
  for (const auto& name : names_of_devices) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      names.push_back(name);
      it = names.end() - 1;
    }
    region_of.push_back(static_cast<int>(it - names.begin()));
  }
}

std::optional<Link> parse_link(YamlSection s) {
  auto delay = s.duration_s("delay", ranges::kLinkDelay, true);
  auto bandwidth = s.bandwidth_Bps("bandwidth", true);
  s.finish();
  if (!delay || !bandwidth) return std::nullopt;
  return Link{*delay, *bandwidth};
}

void parse_regions(Context& ctx, YamlSection s, const DeviceRegions& device_regions,
                   Scenario& out) {
  if (device_regions.region_of_device.empty()) {
    ctx.diag.error(s.line(), "network.regions",
                   "no device names a region (expected devices.regions or devices.groups)");
    s.finish({"intra", "pairs"});
    return;
  }
  std::vector<std::string> names;
  std::vector<int> region_of;
  index_regions(device_regions.region_of_device, names, region_of);
  const std::size_t r = names.size();

  auto intra = parse_link(s.child("intra"));
  std::vector<std::optional<Link>> table(r * r);
  const YAML::Node pairs = s.raw("pairs");
  if (pairs.IsDefined() && !pairs.IsNull() && !pairs.IsSequence())
    ctx.diag.error(line_of(pairs), "network.regions.pairs",
                   "expected a list of {between: [A, B], delay, bandwidth}");
  for (std::size_t k = 0; pairs.IsSequence() && k < pairs.size(); ++k) {
    YamlSection p(ctx.diag, pairs[k], fmt::format("network.regions.pairs[{}]", k));
    const YAML::Node between = p.raw("between");
    auto link = parse_link(YamlSection(p));  // delay/bandwidth of the same map
    std::vector<int> ends;
    if (!between.IsSequence() || between.size() != 2) {
      ctx.diag.error(p.line(), p.key_path("between"), "expected two region names [A, B]");
      continue;
    }
    for (const auto& end : between) {
      const std::string name = scalar_text(end);
      auto it = std::find(names.begin(), names.end(), name);
      if (it == names.end()) {
        std::string message = fmt::format("no device is in this region (regions: {}", join_names(names));
        if (auto close = closest_name(name, names)) message += fmt::format("; did you mean '{}'?", *close);
        ctx.diag.error(line_of(end), p.key_path("between"), name, message + ")");
      } else {
        ends.push_back(static_cast<int>(it - names.begin()));
      }
    }
    if (ends.size() == 2 && link) {
      table[static_cast<std::size_t>(ends[0]) * r + static_cast<std::size_t>(ends[1])] = link;
      table[static_cast<std::size_t>(ends[1]) * r + static_cast<std::size_t>(ends[0])] = link;
    }
  }
  // Missing pairs come from DT-FM's measured city table.
  std::vector<Link> inter(r * r);
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t b = 0; b < r; ++b) {
      if (a == b) continue;
      auto& entry = table[a * r + b];
      if (!entry) entry = city_link(names[a], names[b]);
      if (!entry) {
        if (a < b)
          ctx.diag.error(s.line(), "network.regions.pairs",
                         fmt::format("no figures for the pair ({}, {}) (expected an entry "
                                     "{{between: [{}, {}], delay, bandwidth}}; the built-in table "
                                     "knows {})",
                                     names[a], names[b], names[a], names[b],
                                     join_names(known_cities())));
        continue;
      }
      inter[a * r + b] = *entry;
    }
  if (!intra || !ctx.diag.ok()) return;
  out.network = Topology::regional(names, region_of, std::vector<Link>(r, *intra), inter);
  out.network_source = fmt::format("regions ({} regions)", r);
}

void parse_dtfm_case(Context& ctx, YamlSection& s, const DeviceRegions& device_regions,
                     Scenario& out, std::int64_t case_id) {
  const auto intra_delay = s.duration_s("intra_delay", ranges::kLinkDelay);
  if (intra_delay && case_id < 4)
    ctx.diag.error(s.line_of("intra_delay"), "network.intra_delay",
                   fmt::format("case {} has no configurable intra-region delay (only cases 4 and 5)",
                               case_id));
  if (!device_regions.region_of_device.empty())
    ctx.diag.error(device_regions.line, "devices",
                   fmt::format("names regions, but network.case {} decides where devices are "
                               "(remove devices.regions/groups or use network.regions)",
                               case_id));
  if (out.devices.empty()) return;
  out.network = make_dtfm_case(static_cast<int>(case_id), static_cast<int>(out.devices.size()),
                               intra_delay.value_or(kDtfmDefaultIntraDelay_s));
  out.network_source = fmt::format("DT-FM case {}", case_id);
}

}  // namespace

void parse_network(Context& ctx, YamlSection s, const DeviceRegions& device_regions,
                   Scenario& out) {
  if (!s.present()) {
    if (s.given()) return;
    ctx.diag.error(0, "network", "missing section (expected case: 1..5, regions:, matrix: or measured:)");
    return;
  }
  const auto case_id = s.integer("case", 1, 5);
  const bool has_regions = s.has("regions");
  const bool has_matrix = s.has("matrix");
  const bool has_measured = s.has("measured");
  const int given = (s.has("case") ? 1 : 0) + (has_regions ? 1 : 0) + (has_matrix ? 1 : 0) +
                    (has_measured ? 1 : 0);
  if (given != 1)
    ctx.diag.error(s.line(), "network",
                   given == 0 ? "names no network (expected one of case, regions, matrix, measured)"
                              : "gives more than one of case, regions, matrix, measured (expected "
                                "exactly one)");
  const auto delays_are = s.choice("delays_are", {"one-way", "rtt"}, "delay convention");
  if (auto buffer = s.bytes("tcp_buffer", ranges::kTcpBuffer)) out.tcp_buffer_bytes = *buffer;
  const YAML::Node bandwidth_changes = s.raw("bandwidth_changes");

  if (case_id && given == 1) parse_dtfm_case(ctx, s, device_regions, out, *case_id);
  else s.duration_s("intra_delay", ranges::kLinkDelay);
  if (has_regions && given == 1) parse_regions(ctx, s.child("regions"), device_regions, out);
  else s.child("regions");
  if (has_matrix && given == 1) parse_matrix(ctx, s.child("matrix"), device_regions, out);
  else s.child("matrix");
  parse_measured(ctx, s, device_regions, out, has_measured && given == 1);
  s.finish();
  // Tables like DT-FM's list measured round-trip times when delays_are: rtt; the model is one-way.
  if (delays_are && *delays_are == "rtt") out.network = out.network.scaled(1.0, 0.5);
  // Region names and device ids are checked against the network just built.
  if (given == 1 && !out.network_source.empty()) parse_bandwidth_changes(ctx, bandwidth_changes, out);
}

}  // namespace geotrain::sections
