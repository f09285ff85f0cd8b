#include "sim/topology/dtfm_cases.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "sim/topology/city_table.hpp"

namespace geotrain {

namespace {

constexpr double kGbps = 1e9 / 8;

// Devices in consecutive equal blocks: device i belongs to block i * blocks / n.
std::vector<int> blocks_of(int devices, int blocks) {
  std::vector<int> out(static_cast<std::size_t>(devices));
  for (int i = 0; i < devices; ++i)
    out[static_cast<std::size_t>(i)] =
        static_cast<int>(static_cast<long long>(i) * blocks / devices);
  return out;
}

// Every region pair gets the same link.
std::vector<Link> uniform_inter(std::size_t regions, Link link) {
  return std::vector<Link>(regions * regions, link);
}

Topology instances_case(int devices, int per_instance, int bonus_instances, double base_Gbps) {
  std::vector<std::string> names;
  std::vector<int> region(static_cast<std::size_t>(devices));
  std::vector<Link> intra;
  // Case 2's standalone GPUs are regions of one; case 1's instances all get the bonus.
  int next = 0;
  for (int i = 0; i < devices; ++i) {
    const int instance = i / per_instance;
    const bool bonus = instance < bonus_instances;
    if (bonus) {
      if (static_cast<int>(names.size()) <= instance) {
        names.push_back(fmt::format("instance{}", instance));
        intra.push_back({0, 100 * kGbps});
      }
      region[static_cast<std::size_t>(i)] = instance;
      next = instance + 1;
    } else {
      names.push_back(fmt::format("gpu{}", i));
      intra.push_back({0, base_Gbps * kGbps});
      region[static_cast<std::size_t>(i)] = next++;
    }
  }
  return Topology::regional(names, region, intra,
                            uniform_inter(names.size(), {0, base_Gbps * kGbps}));
}

Topology table_case(const std::vector<std::string>& names, int devices, Link intra,
                    const std::vector<std::vector<Link>>& table) {
  const std::size_t r = names.size();
  std::vector<Link> inter(r * r);
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t b = 0; b < r; ++b) inter[a * r + b] = table[a][b];
  return Topology::regional(names, blocks_of(devices, static_cast<int>(r)),
                            std::vector<Link>(r, intra), inter);
}

Link ms_gbps(double ms, double gbps) { return {ms * 1e-3, gbps * kGbps}; }

Topology case3(int devices) {
  const Link across = ms_gbps(11, 1.12);
  return table_case({"Ohio", "Virginia"}, devices, ms_gbps(1, 5), {{{}, across}, {across, {}}});
}

Topology case4(int devices, double intra_delay_s) {
  // Virginia, Oregon, California, Ohio (DT-FM's order for case 4).
  const Link vi_or = ms_gbps(67, 1.15), vi_ca = ms_gbps(59, 1.05), vi_oh = ms_gbps(11, 1.12),
             or_ca = ms_gbps(12, 1.25), or_oh = ms_gbps(49, 1.10), ca_oh = ms_gbps(52, 1.02);
  return table_case({"Virginia", "Oregon", "California", "Ohio"}, devices,
                    {intra_delay_s, 2 * kGbps},
                    {{{}, vi_or, vi_ca, vi_oh},
                     {vi_or, {}, or_ca, or_oh},
                     {vi_ca, or_ca, {}, ca_oh},
                     {vi_oh, or_oh, ca_oh, {}}});
}

Topology case5(int devices, double intra_delay_s) {
  const std::vector<std::string> cities{"Oregon", "Virginia", "Ohio",      "Tokyo",
                                        "Seoul",  "London",   "Frankfurt", "Ireland"};
  std::vector<std::vector<Link>> table(cities.size(), std::vector<Link>(cities.size()));
  for (std::size_t a = 0; a < cities.size(); ++a)
    for (std::size_t b = 0; b < cities.size(); ++b)
      if (a != b) table[a][b] = *city_link(cities[a], cities[b]);
  return table_case(cities, devices, {intra_delay_s, 2 * kGbps}, table);
}

}  // namespace

Topology make_dtfm_case(int case_id, int devices, double intra_delay_s) {
  if (devices < 1) throw std::invalid_argument("make_dtfm_case: need at least one device");
  switch (case_id) {
    case 1:
      return instances_case(devices, 8, (devices + 7) / 8, 3.125);
    case 2:
      // The first half of the devices (rounded down to whole instances) are 4-GPU spot instances.
      return instances_case(devices, 4, devices / 2 / 4, 1.25);
    case 3:
      return case3(devices);
    case 4:
      return case4(devices, intra_delay_s);
    case 5:
      return case5(devices, intra_delay_s);
    default:
      throw std::invalid_argument(fmt::format("make_dtfm_case: unknown case {}", case_id));
  }
}

}  // namespace geotrain
