// Scenario links per host pair: minimum bandwidth, median delay, loopback inside a host.
#include <catch2/catch.hpp>

#include "real/host_network.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace host_network_test {

using namespace geotrain;
using namespace geotrain::real;

TEST_CASE("median of odd and even counts", "[real][links]") {
  CHECK(median({}) == 0);
  CHECK(median({3}) == 3);
  CHECK(median({5, 1, 3}) == 3);
  CHECK(median({4, 1, 3, 2}) == 2.5);
}

TEST_CASE("rank pairs between two hosts collapse to min bandwidth and median delay", "[real][links]") {
  // 3 ranks: 0 on host a, 1 and 2 on host b. Delays 0->1 10 ms, 0->2 30 ms; bandwidths 100, 50.
  const std::vector<double> delay = {0, 0.010, 0.030, 0.010, 0, 0.001, 0.030, 0.001, 0};
  const std::vector<double> bw = {0, 100, 50, 100, 0, 1000, 50, 1000, 0};
  const Topology net = Topology::matrix({"x"}, {0, 0, 0}, delay, bw);
  HostsFile hosts;
  hosts.hosts.resize(2);
  hosts.hosts[0].name = "a", hosts.hosts[0].ranks = {0};
  hosts.hosts[1].name = "b", hosts.hosts[1].ranks = {1, 2};
  hosts.host_of_rank = {0, 1, 1};
  const HostNetwork h = host_network(net, hosts);
  REQUIRE(h.hosts == 2);
  CHECK(h.link(0, 1).pairs.size() == 2);
  CHECK(h.link(0, 1).bandwidth_Bps == 50);
  CHECK(h.link(0, 1).delay_s == Approx(0.020));
  CHECK_FALSE(h.link(0, 1).exact());
  CHECK(h.loopback[0].empty());
  REQUIRE(h.loopback[1].size() == 2);
  CHECK(h.loopback[1][0].src == 1);
  CHECK(h.loopback[1][0].dst == 2);
  CHECK(h.loopback[1][0].bandwidth_Bps == 1000);
}

}  // namespace host_network_test
