#include "sim/common/units.hpp"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

namespace geotrain::units {

namespace {

struct Unit {
  std::string_view suffix;
  double factor;
};

// Splits "1.12Gbps" into 1.12 and "Gbps". Leading/trailing blanks and one blank between the
// number and the unit are accepted ("1.12 Gbps").
bool split_number(std::string_view text, double& number, std::string_view& suffix) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || ptr == begin) return false;
  suffix = std::string_view(ptr, static_cast<std::size_t>(end - ptr));
  while (!suffix.empty() && suffix.front() == ' ') suffix.remove_prefix(1);
  return std::isfinite(number);
}

template <std::size_t N>
Parsed parse_with(std::string_view text, const std::array<Unit, N>& table, const char* quantity,
                  const char* example, bool unitless_ok) {
  double number = 0;
  std::string_view suffix;
  if (!split_number(text, number, suffix)) {
    return {0, fmt::format("not a {} (expected a number with a unit, e.g. '{}')", quantity,
                           example)};
  }
  if (suffix.empty()) {
    if (unitless_ok) return {number, {}};
    return {0, fmt::format("a {} needs a unit (e.g. '{}')", quantity, example)};
  }
  for (const auto& unit : table) {
    if (unit.suffix == suffix) return {number * unit.factor, {}};
  }
  std::string known;
  for (const auto& unit : table) {
    if (!known.empty()) known += ", ";
    known += unit.suffix;
  }
  return {0, fmt::format("unknown unit '{}' for a {} (expected e.g. '{}'; units: {})", suffix,
                         quantity, example, known)};
}

constexpr std::array<Unit, 7> kDurationUnits{{{"ns", 1e-9},
                                              {"us", 1e-6},
                                              {"ms", 1e-3},
                                              {"s", 1.0},
                                              {"sec", 1.0},
                                              {"min", 60.0},
                                              {"h", 3600.0}}};

constexpr std::array<Unit, 16> kBandwidthUnits{{{"bps", 1.0 / 8},
                                                {"Kbps", 1e3 / 8},
                                                {"Mbps", 1e6 / 8},
                                                {"Gbps", 1e9 / 8},
                                                {"Tbps", 1e12 / 8},
                                                {"kbps", 1e3 / 8},
                                                {"Kbit/s", 1e3 / 8},
                                                {"Mbit/s", 1e6 / 8},
                                                {"Gbit/s", 1e9 / 8},
                                                {"Bps", 1.0},
                                                {"KBps", 1e3},
                                                {"MBps", 1e6},
                                                {"GBps", 1e9},
                                                {"MB/s", 1e6},
                                                {"GB/s", 1e9},
                                                {"MiBps", 1048576.0}}};

constexpr std::array<Unit, 10> kByteUnits{{{"B", 1.0},
                                           {"KB", 1e3},
                                           {"MB", 1e6},
                                           {"GB", 1e9},
                                           {"TB", 1e12},
                                           {"KiB", 1024.0},
                                           {"MiB", 1048576.0},
                                           {"GiB", 1073741824.0},
                                           {"TiB", 1099511627776.0},
                                           {"kB", 1e3}}};

constexpr std::array<Unit, 6> kFlopsUnits{{{"FLOPS", 1.0},
                                           {"KFLOPS", 1e3},
                                           {"MFLOPS", 1e6},
                                           {"GFLOPS", 1e9},
                                           {"TFLOPS", 1e12},
                                           {"PFLOPS", 1e15}}};

std::string trim_number(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

Parsed parse_duration_s(std::string_view text) {
  return parse_with(text, kDurationUnits, "duration", "11ms", false);
}
Parsed parse_bandwidth_Bps(std::string_view text) {
  return parse_with(text, kBandwidthUnits, "bandwidth", "1.12Gbps", false);
}
Parsed parse_bytes(std::string_view text) {
  return parse_with(text, kByteUnits, "size", "0.65GB", true);
}
Parsed parse_flops(std::string_view text) {
  return parse_with(text, kFlopsUnits, "compute rate", "125TFLOPS", false);
}

std::string format_duration(double s) {
  if (s == 0) return "0 s";
  if (std::abs(s) < 1e-3) return trim_number(s * 1e6) + " us";
  if (std::abs(s) < 1.0) return trim_number(s * 1e3) + " ms";
  return trim_number(s) + " s";
}
std::string format_bandwidth(double Bps) {
  const double bits = Bps * 8;
  if (bits >= 1e9) return trim_number(bits / 1e9) + " Gbit/s";
  if (bits >= 1e6) return trim_number(bits / 1e6) + " Mbit/s";
  return trim_number(bits / 1e3) + " kbit/s";
}
std::string format_bytes(double b) {
  if (b >= 1e9) return trim_number(b / 1e9) + " GB";
  if (b >= 1e6) return trim_number(b / 1e6) + " MB";
  if (b >= 1e3) return trim_number(b / 1e3) + " kB";
  return trim_number(b) + " B";
}
std::string format_flops(double f) {
  if (f >= 1e15) return trim_number(f / 1e15) + " PFLOP/s";
  if (f >= 1e12) return trim_number(f / 1e12) + " TFLOP/s";
  return trim_number(f / 1e9) + " GFLOP/s";
}

}  // namespace geotrain::units
