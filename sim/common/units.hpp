#pragma once
// Units live in scenario values ("1.12Gbps", "11ms", "125TFLOPS", "0.65GB", "2GiB") and are
// parsed only here, at the scenario boundary. Inside the code everything is SI doubles:
// seconds, bytes, bytes/s, flop, flop/s.
#include <string>
#include <string_view>
#include <variant>

namespace geotrain::units {

// A parsed value, or the reason it could not be parsed (with a hint a user can act on).
struct Parsed {
  double value = 0;
  std::string error;  // empty on success
  bool ok() const { return error.empty(); }
};

Parsed parse_duration_s(std::string_view text);     // "11ms", "1.5s", "250us" -> seconds
Parsed parse_bandwidth_Bps(std::string_view text);  // "1.12Gbps", "125MBps" -> bytes/s
Parsed parse_bytes(std::string_view text);          // "0.65GB", "2GiB", "512" (plain bytes)
Parsed parse_flops(std::string_view text);          // "125TFLOPS" -> flop/s

// Human formatting for summaries ("1.12 Gbit/s", "11 ms", "1.31 GB").
std::string format_duration(double seconds);
std::string format_bandwidth(double bytes_per_s);
std::string format_bytes(double bytes);
std::string format_flops(double flops_per_s);

}  // namespace geotrain::units
