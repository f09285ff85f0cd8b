#include <catch2/catch.hpp>

#include "sim/common/units.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace units_test {

using namespace geotrain::units;

TEST_CASE("durations carry their unit", "[units]") {
  CHECK(parse_duration_s("11ms").value == Approx(0.011));
  CHECK(parse_duration_s("1.5 s").value == Approx(1.5));
  CHECK(parse_duration_s("250us").value == Approx(250e-6));
  CHECK(parse_duration_s("2min").value == Approx(120));
  CHECK_FALSE(parse_duration_s("11").ok());
  CHECK(parse_duration_s("11").error == "a duration needs a unit (e.g. '11ms')");
  CHECK_FALSE(parse_duration_s("11 parsecs").ok());
  CHECK_FALSE(parse_duration_s("fast").ok());
}

TEST_CASE("bandwidths distinguish bits and bytes", "[units]") {
  CHECK(parse_bandwidth_Bps("1.12Gbps").value == Approx(1.12e9 / 8));
  CHECK(parse_bandwidth_Bps("1.25GBps").value == Approx(1.25e9));
  CHECK(parse_bandwidth_Bps("300Mbit/s").value == Approx(300e6 / 8));
  const auto bad = parse_bandwidth_Bps("10Gbs");
  CHECK_FALSE(bad.ok());
  CHECK(bad.error.rfind("unknown unit 'Gbs' for a bandwidth (expected e.g. '1.12Gbps'", 0) == 0);
}

TEST_CASE("sizes accept decimal and binary prefixes and plain bytes", "[units]") {
  CHECK(parse_bytes("0.65GB").value == Approx(0.65e9));
  CHECK(parse_bytes("2GiB").value == Approx(2.0 * (1 << 30)));
  CHECK(parse_bytes("512").value == 512);
  CHECK(parse_flops("125TFLOPS").value == Approx(125e12));
  CHECK_FALSE(parse_flops("125").ok());
}

TEST_CASE("formatting picks a readable unit", "[units]") {
  CHECK(format_duration(0.011) == "11 ms");
  CHECK(format_bandwidth(1.12e9 / 8) == "1.12 Gbit/s");
  CHECK(format_bytes(0.65e9) == "650 MB");
}

}  // namespace units_test
