#pragma once
// Fills in pairs of an explicit matrix that have no direct link: the route is the shortest-delay
// path over direct links (Dijkstra, Boost.Graph); its delay is the sum of the hops and its
// bandwidth the narrowest hop.
#include <utility>
#include <vector>

namespace geotrain {

struct RoutingResult {
  std::size_t routed_pairs = 0;
  std::vector<std::pair<std::size_t, std::size_t>> unreachable;
};

// delay/bandwidth: row-major n x n; NaN marks a missing link. Filled in place.
RoutingResult route_missing_links(std::size_t n, std::vector<double>& delay_s,
                                  std::vector<double>& bandwidth_Bps);

}  // namespace geotrain
