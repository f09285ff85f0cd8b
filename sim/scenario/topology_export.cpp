#include "sim/scenario/topology_export.hpp"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>

namespace geotrain {

namespace {
// Rounded so that figures like 0.79 Gbit/s print as written in the tables (no 0.7900000001).
double round_to(double v, double digits) { return std::round(v * digits) / digits; }
double ms(double s) { return round_to(s * 1e3, 1e9); }
double gbps(double Bps) { return round_to(Bps * 8 / 1e9, 1e9); }
}  // namespace

void write_topology_json(const Scenario& s, const Topology& t, std::ostream& out) {
  const int n = t.device_count();
  nlohmann::ordered_json doc;
  doc["devices"] = nlohmann::ordered_json::array();
  for (int i = 0; i < n; ++i)
    doc["devices"].push_back({{"id", i},
                              {"region", t.region_name(t.region_of(i))},
                              {"profile", s.devices.at(static_cast<std::size_t>(i)).profile}});
  auto delay = nlohmann::ordered_json::array();
  auto bandwidth = nlohmann::ordered_json::array();
  for (int i = 0; i < n; ++i) {
    auto drow = nlohmann::ordered_json::array();
    auto brow = nlohmann::ordered_json::array();
    for (int j = 0; j < n; ++j) {
      const Link l = t.link(i, j);
      drow.push_back(ms(l.delay_s));
      brow.push_back(gbps(l.bandwidth_Bps));
    }
    delay.push_back(std::move(drow));
    bandwidth.push_back(std::move(brow));
  }
  doc["delay_ms"] = std::move(delay);
  doc["bandwidth_Gbps"] = std::move(bandwidth);
  out << doc.dump() << '\n';
}

void write_topology_csv(const Scenario&, const Topology& t, std::ostream& out) {
  out << "src,dst,src_region,dst_region,delay_ms,bandwidth_Gbps\n";
  const int n = t.device_count();
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (i == j) continue;
      const Link l = t.link(i, j);
      out << fmt::format("{},{},{},{},{},{}\n", i, j, t.region_name(t.region_of(i)),
                         t.region_name(t.region_of(j)), ms(l.delay_s), gbps(l.bandwidth_Bps));
    }
}

}  // namespace geotrain
