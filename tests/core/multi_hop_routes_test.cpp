#include <catch2/catch.hpp>

#include <cmath>

#include "sim/topology/multi_hop_routes.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace multi_hop_routes_test {

using namespace geotrain;

TEST_CASE("missing links are routed over the shortest-delay path", "[routes]") {
  const double nan = std::nan("");
  // 0 - 1 - 2 chain plus a slow direct 0 - 2 missing; 3 isolated in the second case.
  std::vector<double> d{0, 0.010, nan, 0.010, 0, 0.005, nan, 0.005, 0};
  std::vector<double> b{0, 100, nan, 100, 0, 10, nan, 10, 0};
  const auto r = route_missing_links(3, d, b);
  CHECK(r.routed_pairs == 2);
  CHECK(r.unreachable.empty());
  CHECK(d[0 * 3 + 2] == Approx(0.015));
  CHECK(b[0 * 3 + 2] == 10);  // the narrowest hop
  CHECK(d[2 * 3 + 0] == Approx(0.015));
}

TEST_CASE("unreachable pairs are reported", "[routes]") {
  const double nan = std::nan("");
  std::vector<double> d{0, nan, nan, 0};
  std::vector<double> b{0, nan, nan, 0};
  const auto r = route_missing_links(2, d, b);
  CHECK(r.unreachable.size() == 2);
}

}  // namespace multi_hop_routes_test
