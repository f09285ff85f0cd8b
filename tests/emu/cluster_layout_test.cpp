#include <catch2/catch.hpp>

#include "emu/net/cluster_layout.hpp"
#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace cluster_layout_test {

using namespace geotrain;
using namespace geotrain::emu;

TEST_CASE("subnets parse - normalize and overlap", "[layout]") {
  const Ipv4Subnet s = Ipv4Subnet::parse("10.200.3.7/16");
  CHECK(s.to_string() == "10.200.0.0/16");
  CHECK(s.size() == 65536);
  CHECK(s.overlaps(Ipv4Subnet::parse("10.200.9.0/24")));
  CHECK(s.overlaps(Ipv4Subnet::parse("10.0.0.0/8")));
  CHECK_FALSE(s.overlaps(Ipv4Subnet::parse("10.201.0.0/16")));
}

TEST_CASE("subnets that are not private or not prefixes are refused with one line", "[layout]") {
  try {
    Ipv4Subnet::parse("8.8.0.0/16");
    FAIL("accepted a public range");
  } catch (const InputError& e) {
    CHECK(e.problems() == std::vector<std::string>{
                              "--subnet = '8.8.0.0/16': not a private range (expected inside "
                              "10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)"});
  }
  CHECK_THROWS_AS(Ipv4Subnet::parse("10.1.2.3"), InputError);
  CHECK_THROWS_AS(Ipv4Subnet::parse("10.1.2.300/24"), InputError);
  CHECK_THROWS_AS(Ipv4Subnet::parse("10.1.0.0/31"), InputError);
}

TEST_CASE("layout names and addresses", "[layout]") {
  const ClusterLayout l("c5", 8, Ipv4Subnet::parse("10.200.0.0/16"));
  CHECK(l.rank_namespace(3) == "gt-c5-3");
  CHECK(l.hub_namespace() == "gt-c5-hub");
  CHECK(l.rank_address(0) == "10.200.0.1");
  CHECK(l.rank_address(7) == "10.200.0.8");
  CHECK(l.hub_port(7) == "r7");
}

TEST_CASE("layouts refuse bad names and ranges too small", "[layout]") {
  CHECK_THROWS_AS(ClusterLayout("Bad-Name", 2, Ipv4Subnet::parse("10.200.0.0/16")), InputError);
  CHECK_THROWS_AS(ClusterLayout("ok", 300, Ipv4Subnet::parse("10.200.0.0/24")), InputError);
  CHECK_NOTHROW(ClusterLayout("ok", 252, Ipv4Subnet::parse("10.200.0.0/24")));
}

TEST_CASE("cluster names come from scenario names", "[layout]") {
  CHECK(cluster_name_from("pair_5ms_2gbps") == "pair_5ms_2gbps");
  CHECK(cluster_name_from("DT-FM case 5!") == "dt_fm_case_5");
  CHECK(cluster_name_from("a_very_long_scenario_name_indeed_yes") == "a_very_long_scenario_nam");
}

}  // namespace cluster_layout_test
