// Address-range checks on captured `ip` output (no root, nothing read from this host).
#include <catch2/catch.hpp>

#include "emu/net/host_checks.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace host_checks_test {

using namespace geotrain::emu;

namespace {

const char* kAddrs =
    "1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever\n"
    "4: eth0    inet 10.200.7.2/24 brd 10.200.7.255 scope global eth0\\       valid_lft forever\n";
const char* kRoutes =
    "default via 192.0.2.1 dev eth0\n"
    "172.20.0.0/16 via 192.0.2.9 dev eth0\n"
    "local 127.0.0.1 dev lo table local proto kernel scope host src 127.0.0.1\n"
    "broadcast 10.200.7.255 dev eth0 table local proto kernel scope link src 10.200.7.2\n";

}  // namespace

TEST_CASE("host prefixes come from addresses and routes - default routes excluded", "[hostcheck]") {
  const auto p = parse_host_prefixes(kAddrs, kRoutes);
  std::vector<std::string> text;
  for (const auto& s : p) text.push_back(s.to_string());
  CHECK(text == std::vector<std::string>{"127.0.0.0/8", "10.200.7.0/24", "172.20.0.0/16",
                                         "127.0.0.1/32", "10.200.7.255/32"});
}

TEST_CASE("a range the host uses is busy - with a clear reason", "[hostcheck]") {
  const auto host = parse_host_prefixes(kAddrs, kRoutes);
  CHECK(subnet_conflict(Ipv4Subnet::parse("10.200.0.0/16"), host, {}) ==
        "address range 10.200.0.0/16 overlaps 10.200.7.0/24, which this host uses (pick another "
        "with --subnet, e.g. 10.231.0.0/16)");
  CHECK(subnet_conflict(Ipv4Subnet::parse("10.201.0.0/16"), host, {}).empty());
}

TEST_CASE("a range another cluster uses is busy - the first free one is picked", "[hostcheck]") {
  const auto host = parse_host_prefixes(kAddrs, kRoutes);
  ClusterRecord other;
  other.cluster = "c5";
  other.subnet = "10.201.0.0/16";
  CHECK(subnet_conflict(Ipv4Subnet::parse("10.201.0.0/24"), host, {other}) ==
        "address range 10.201.0.0/24 is in use by geotrain cluster 'c5' (pick another with "
        "--subnet, or take it down: geotrain emu down c5)");
  CHECK(pick_free_subnet(host, {other}).to_string() == "10.202.0.0/16");
}

}  // namespace host_checks_test
