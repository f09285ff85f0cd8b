#include "sim/scenario/value_range.hpp"

#include <fmt/format.h>

#include <array>
#include <cmath>
#include <utility>

namespace geotrain {

namespace {

using Unit = std::pair<const char*, double>;

// The largest unit the value fills at least once (from a table sorted by factor).
template <std::size_t N>
std::string largest(double v, const std::array<Unit, N>& units) {
  const Unit* best = &units[0];
  for (const auto& u : units)
    if (v >= u.second) best = &u;
  return fmt::format("{:g} {}", v / best->second, best->first);
}

// Sizes read best in the largest unit that divides them exactly, binary or decimal
// (1 GiB, 1 PB), and in bytes otherwise (1448 B).
std::string bytes_text(double v) {
  constexpr std::array<Unit, 9> units{{{"KB", 1e3},
                                       {"KiB", 1024.0},
                                       {"MB", 1e6},
                                       {"MiB", 1048576.0},
                                       {"GB", 1e9},
                                       {"GiB", 1073741824.0},
                                       {"TB", 1e12},
                                       {"TiB", 1099511627776.0},
                                       {"PB", 1e15}}};
  const Unit* best = nullptr;
  for (const auto& u : units)
    if (v >= u.second && std::fmod(v, u.second) == 0) best = &u;
  if (!best) return fmt::format("{:g} B", v);
  return fmt::format("{:g} {}", v / best->second, best->first);
}

std::string duration_text(double s) {
  if (s == 0) return "0 s";
  if (s < 1e-3) return fmt::format("{:g} us", s * 1e6);
  if (s < 1) return fmt::format("{:g} ms", s * 1e3);
  if (s < 3600) return fmt::format("{:g} s", s);
  return fmt::format("{:g} h", s / 3600);
}

}  // namespace

std::string format_in_unit(Quantity q, double v) {
  switch (q) {
    case Quantity::duration:
      return duration_text(v);
    case Quantity::bandwidth:
      return largest(
          v * 8, std::array<Unit, 5>{
                     {{"bps", 1}, {"Kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9}, {"Tbps", 1e12}}});
    case Quantity::bytes:
      return bytes_text(v);
    case Quantity::flops:
      return largest(v, std::array<Unit, 7>{{{"FLOPS", 1},
                                             {"KFLOPS", 1e3},
                                             {"MFLOPS", 1e6},
                                             {"GFLOPS", 1e9},
                                             {"TFLOPS", 1e12},
                                             {"PFLOPS", 1e15},
                                             {"EFLOPS", 1e18}}});
    case Quantity::memory_bandwidth:
      return largest(v, std::array<Unit, 6>{{{"B/s", 1},
                                             {"KB/s", 1e3},
                                             {"MB/s", 1e6},
                                             {"GB/s", 1e9},
                                             {"TB/s", 1e12},
                                             {"PB/s", 1e15}}});
  }
  return fmt::format("{:g}", v);
}

std::optional<std::string> range_problem(const ValueRange& r, double v) {
  if (std::isfinite(v) && v >= r.min && v <= r.max) return std::nullopt;
  return fmt::format("out of range (expected {} ... {})", format_in_unit(r.quantity, r.min),
                     format_in_unit(r.quantity, r.max));
}

}  // namespace geotrain
