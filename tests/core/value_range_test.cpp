// Physical ranges and their messages (sim/scenario/value_range.hpp).
#include "sim/scenario/value_range.hpp"

#include <catch2/catch.hpp>
#include <cmath>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace value_range_test {

using namespace geotrain;

TEST_CASE("range messages state both bounds in units", "[ranges]") {
  CHECK(range_problem(ranges::kBandwidth, 1.25e308).value() ==
        "out of range (expected 1 bps ... 10 Tbps)");
  CHECK(range_problem(ranges::kTcpBuffer, 0).value() == "out of range (expected 1448 B ... 1 GiB)");
  CHECK(range_problem(ranges::kLinkDelay, 3600).value() == "out of range (expected 0 s ... 10 s)");
  CHECK(range_problem(ranges::kRunTime, -1).value() == "out of range (expected 0 s ... 168 h)");
  CHECK(range_problem(ranges::kDeviceMemory, 1).value() ==
        "out of range (expected 1 MB ... 100 TB)");
  CHECK(range_problem(ranges::kDeviceFlops, 1e30).value() ==
        "out of range (expected 1 MFLOPS ... 1 EFLOPS)");
}

TEST_CASE("bounds are inclusive, NaN and infinities are out", "[ranges]") {
  CHECK_FALSE(range_problem(ranges::kTcpBuffer, ranges::kMss_B));
  CHECK_FALSE(range_problem(ranges::kTcpBuffer, 64.0 * 1048576));
  CHECK_FALSE(range_problem(ranges::kBandwidth, 1.0 / 8));
  CHECK_FALSE(range_problem(ranges::kBandwidth, 10e12 / 8));
  CHECK(range_problem(ranges::kBandwidth, std::nan("")));
  CHECK(range_problem(ranges::kLinkDelay, INFINITY));
}

TEST_CASE("values are written in the unit they fill", "[ranges]") {
  CHECK(format_in_unit(Quantity::bandwidth, 1e9 / 8) == "1 Gbps");
  CHECK(format_in_unit(Quantity::duration, 0.005) == "5 ms");
  CHECK(format_in_unit(Quantity::duration, 2e-5) == "20 us");
  CHECK(format_in_unit(Quantity::bytes, 25e6) == "25 MB");
  CHECK(format_in_unit(Quantity::bytes, 1048576) == "1 MiB");
}

}  // namespace value_range_test
