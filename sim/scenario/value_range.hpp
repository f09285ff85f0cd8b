#pragma once
// The physical range of every unit-carrying scenario value, in one place, so that a check and
// its message ("out of range (expected 1 bps ... 10 Tbps)") cannot drift apart. Plain numbers
// and counts give their [min, max] to YamlSection::number/integer directly; the tables of both
// are in docs/scenario-reference.md.
#include <optional>
#include <string>

namespace geotrain {

// bandwidth: link rates, shown in bits/s; memory_bandwidth: a device's memory, shown in bytes/s.
enum class Quantity { duration, bandwidth, bytes, flops, memory_bandwidth };

// Inclusive [min, max] in SI units (seconds, bytes/s, bytes, flop/s).
struct ValueRange {
  Quantity quantity;
  double min;
  double max;
};

namespace ranges {
// One MSS of TCP over Ethernet (1500 - 20 IP - 20 TCP - 12 timestamp option): the smallest
// window that carries a segment. Below it the tcp model's window bound is meaningless.
inline constexpr double kMss_B = 1448;
inline constexpr double kWeek_s = 7 * 24 * 3600.0;

// One-way link delay: 0 (same host) to 10 s (far beyond any terrestrial or satellite path).
inline constexpr ValueRange kLinkDelay{Quantity::duration, 0, 10};
// Any elapsed time of a run (bandwidth change dates, straggler sleeps, timeouts): up to a week.
inline constexpr ValueRange kRunTime{Quantity::duration, 0, kWeek_s};
// SD-Pipe's partial-reduce windows: up to an hour.
inline constexpr ValueRange kWindow{Quantity::duration, 0, 3600};
// Link bandwidth: 1 bit/s to 10 Tbit/s.
inline constexpr ValueRange kBandwidth{Quantity::bandwidth, 1.0 / 8, 10e12 / 8};
// Socket buffer of the tcp model: one MSS to 1 GiB (Linux caps tcp_rmem near 2 GiB).
inline constexpr ValueRange kTcpBuffer{Quantity::bytes, kMss_B, 1073741824.0};
// Device memory: 1 MB to 100 TB.
inline constexpr ValueRange kDeviceMemory{Quantity::bytes, 1e6, 1e14};
// Model-derived sizes (gradients, activations, buckets): 0 to 1 PB.
inline constexpr ValueRange kModelBytes{Quantity::bytes, 0, 1e15};
// Peak compute of one device: 1 MFLOP/s to 1 EFLOP/s.
inline constexpr ValueRange kDeviceFlops{Quantity::flops, 1e6, 1e18};
// Memory bandwidth of one device: 1 MB/s to 1 PB/s (HBM3e is 5 TB/s).
inline constexpr ValueRange kMemoryBandwidth{Quantity::memory_bandwidth, 1e6, 1e15};
}  // namespace ranges

// "1 bps", "10 Tbps", "1448 B", "1 GiB", "10 s", "168 h", "1 MFLOPS".
std::string format_in_unit(Quantity q, double value);
// nullopt inside the range, else "out of range (expected <min> ... <max>)".
std::optional<std::string> range_problem(const ValueRange& r, double value);

}  // namespace geotrain
