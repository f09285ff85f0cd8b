#include "sim/topology/city_table.hpp"

#include <array>

namespace geotrain {

namespace {

struct CityPair {
  const char* a;
  const char* b;
  double delay_ms;
  double bandwidth_Gbps;
};

// DT-FM's measured AWS pairs (delay ms one-way, Gbit/s).
constexpr std::array<CityPair, 45> kPairs{{
    {"Oregon", "Virginia", 67, 0.79},      {"Oregon", "Ohio", 49, 1.10},
    {"Oregon", "Tokyo", 96, 0.523},        {"Oregon", "Seoul", 124, 0.46},
    {"Oregon", "Singapore", 163, 0.341},   {"Oregon", "Sydney", 139, 0.36},
    {"Oregon", "London", 136, 0.42},       {"Oregon", "Frankfurt", 143, 0.404},
    {"Oregon", "Ireland", 124, 0.482},     {"Virginia", "Ohio", 11, 1.12},
    {"Virginia", "Tokyo", 143, 0.524},     {"Virginia", "Seoul", 172, 0.500},
    {"Virginia", "Singapore", 230, 0.364}, {"Virginia", "Sydney", 197, 0.383},
    {"Virginia", "London", 76, 1.16},      {"Virginia", "Frankfurt", 90, 1.02},
    {"Virginia", "Ireland", 67, 1.05},     {"Ohio", "Tokyo", 130, 0.694},
    {"Ohio", "Seoul", 159, 0.529},         {"Ohio", "Singapore", 197, 0.452},
    {"Ohio", "Sydney", 185, 0.484},        {"Ohio", "London", 86, 1.05},
    {"Ohio", "Frankfurt", 99, 0.799},      {"Ohio", "Ireland", 77, 1.14},
    {"Tokyo", "Seoul", 34, 1.10},          {"Tokyo", "Singapore", 73, 1.01},
    {"Tokyo", "Sydney", 100, 0.761},       {"Tokyo", "London", 210, 0.366},
    {"Tokyo", "Frankfurt", 223, 0.36},     {"Tokyo", "Ireland", 199, 0.465},
    {"Seoul", "Singapore", 74, 1.14},      {"Seoul", "Sydney", 148, 0.58},
    {"Seoul", "London", 238, 0.342},       {"Seoul", "Frankfurt", 235, 0.358},
    {"Seoul", "Ireland", 228, 0.335},      {"Singapore", "Sydney", 92, 0.816},
    {"Singapore", "London", 169, 0.500},   {"Singapore", "Frankfurt", 155, 0.535},
    {"Singapore", "Ireland", 179, 0.492},  {"Sydney", "London", 262, 0.326},
    {"Sydney", "Frankfurt", 265, 0.328},   {"Sydney", "Ireland", 254, 0.344},
    {"London", "Frankfurt", 14, 1.14},     {"London", "Ireland", 12, 1.09},
    {"Frankfurt", "Ireland", 24, 1.08},
}};

}  // namespace

const std::vector<std::string>& known_cities() {
  static const std::vector<std::string> cities{"Oregon", "Virginia",  "Ohio",    "Tokyo",
                                               "Seoul",  "Singapore", "Sydney",  "London",
                                               "Frankfurt", "Ireland"};
  return cities;
}

std::optional<Link> city_link(const std::string& a, const std::string& b) {
  for (const auto& p : kPairs) {
    if ((a == p.a && b == p.b) || (a == p.b && b == p.a))
      return Link{p.delay_ms * 1e-3, p.bandwidth_Gbps * 1e9 / 8};
  }
  return std::nullopt;
}

}  // namespace geotrain
