// The five DT-FM cases must reproduce docs/dtfm-cases.md for 64 devices. The
// expected figures are written out here independently of sim/topology.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "sim/topology/dtfm_cases.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace dtfm_cases_test {

using namespace geotrain;

namespace {
constexpr double kGbps = 1e9 / 8;

void check_pair(const Topology& t, int i, int j, double delay_ms, double gbps) {
  INFO("pair " << i << " -> " << j);
  CHECK(t.delay_s(i, j) == Approx(delay_ms * 1e-3).margin(1e-15));
  CHECK(t.bandwidth_Bps(i, j) == Approx(gbps * kGbps));
}
}  // namespace

TEST_CASE("case 1: 8 instances of 8 GPUs", "[dtfm]") {
  const Topology t = make_dtfm_case(1, 64);
  REQUIRE(t.device_count() == 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j)
      if (i != j) check_pair(t, i, j, 0, i / 8 == j / 8 ? 100 : 3.125);
}

TEST_CASE("case 2: spot instances of 4 and standalone GPUs", "[dtfm]") {
  const Topology t = make_dtfm_case(2, 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      if (i == j) continue;
      const bool bonus = i < 32 && j < 32 && i / 4 == j / 4;
      check_pair(t, i, j, 0, bonus ? 100 : 1.25);
    }
}

TEST_CASE("case 3: two sites", "[dtfm]") {
  const Topology t = make_dtfm_case(3, 64);
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j)
      if (i != j) {
        const bool same = (i < 32) == (j < 32);
        check_pair(t, i, j, same ? 1 : 11, same ? 5 : 1.12);
      }
  CHECK(t.region_name(t.region_of(0)) == "Ohio");
  CHECK(t.region_name(t.region_of(63)) == "Virginia");
}

TEST_CASE("case 4: four US regions", "[dtfm]") {
  const Topology t = make_dtfm_case(4, 64);
  // 0..15 Virginia, 16..31 Oregon, 32..47 California, 48..63 Ohio
  const double d[4][4] = {{5, 67, 59, 11}, {67, 5, 12, 49}, {59, 12, 5, 52}, {11, 49, 52, 5}};
  const double b[4][4] = {{2, 1.15, 1.05, 1.12}, {1.15, 2, 1.25, 1.10}, {1.05, 1.25, 2, 1.02}, {1.12, 1.10, 1.02, 2}};
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j)
      if (i != j) check_pair(t, i, j, d[i / 16][j / 16], b[i / 16][j / 16]);
  SECTION("intra-region delay is configurable") {
    const Topology ten = make_dtfm_case(4, 64, 10e-3);
    check_pair(ten, 0, 1, 10, 2);
    check_pair(ten, 0, 16, 67, 1.15);
  }
}

TEST_CASE("case 5: eight cities world-wide", "[dtfm]") {
  const Topology t = make_dtfm_case(5, 64);
  const char* cities[8] = {"Oregon", "Virginia", "Ohio", "Tokyo", "Seoul", "London", "Frankfurt", "Ireland"};
  // The reference table for these eight cities (delay ms, bandwidth Gbit/s).
  const double d[8][8] = {{5, 67, 49, 96, 124, 136, 143, 124},  {67, 5, 11, 143, 172, 76, 90, 67},
                          {49, 11, 5, 130, 159, 86, 99, 77},    {96, 143, 130, 5, 34, 210, 223, 199},
                          {124, 172, 159, 34, 5, 238, 235, 228}, {136, 76, 86, 210, 238, 5, 14, 12},
                          {143, 90, 99, 223, 235, 14, 5, 24},   {124, 67, 77, 199, 228, 12, 24, 5}};
  const double b[8][8] = {{2, 0.79, 1.10, 0.523, 0.46, 0.42, 0.404, 0.482},
                          {0.79, 2, 1.12, 0.524, 0.500, 1.16, 1.02, 1.05},
                          {1.10, 1.12, 2, 0.694, 0.529, 1.05, 0.799, 1.14},
                          {0.523, 0.524, 0.694, 2, 1.10, 0.366, 0.36, 0.465},
                          {0.46, 0.500, 0.529, 1.10, 2, 0.342, 0.358, 0.335},
                          {0.42, 1.16, 1.05, 0.366, 0.342, 2, 1.14, 1.09},
                          {0.404, 1.02, 0.799, 0.36, 0.358, 1.14, 2, 1.08},
                          {0.482, 1.05, 1.14, 0.465, 0.335, 1.09, 1.08, 2}};
  for (int i = 0; i < 64; ++i) {
    CHECK(t.region_name(t.region_of(i)) == cities[i / 8]);
    for (int j = 0; j < 64; ++j)
      if (i != j) check_pair(t, i, j, d[i / 8][j / 8], b[i / 8][j / 8]);
  }
}

TEST_CASE("cases generalize to other device counts by the same layout rules", "[dtfm]") {
  SECTION("case 5 with 8 devices puts one device in each city") {
    const Topology t = make_dtfm_case(5, 8);
    check_pair(t, 0, 1, 67, 0.79);
    check_pair(t, 4, 5, 238, 0.342);
  }
  SECTION("case 3 with 5 devices splits 3 / 2") {
    const Topology t = make_dtfm_case(3, 5);
    CHECK(t.region_of(2) == 0);
    CHECK(t.region_of(3) == 1);
  }
  SECTION("case 1 with 12 devices: one full and one half instance") {
    const Topology t = make_dtfm_case(1, 12);
    check_pair(t, 8, 11, 0, 100);
    check_pair(t, 7, 8, 0, 3.125);
  }
  SECTION("case 4 with 10 000 devices builds without an N x N matrix") {
    const Topology t = make_dtfm_case(4, 10000);
    CHECK(t.is_regional());
    check_pair(t, 0, 9999, 11, 1.12);
  }
  SECTION("a single device has no links") {
    const Topology t = make_dtfm_case(5, 1);
    CHECK(t.stats().max_bandwidth_Bps == 0);
  }
}

}  // namespace dtfm_cases_test
