#include "sim/topology/multi_hop_routes.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <cmath>
#include <limits>

namespace geotrain {

RoutingResult route_missing_links(std::size_t n, std::vector<double>& delay_s,
                                  std::vector<double>& bandwidth_Bps) {
  RoutingResult result;
  bool any_missing = false;
  for (std::size_t i = 0; i < n && !any_missing; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && std::isnan(delay_s[i * n + j])) any_missing = true;
  if (!any_missing) return result;

  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                      boost::property<boost::edge_weight_t, double>>;
  Graph g(n);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && !std::isnan(delay_s[i * n + j])) boost::add_edge(i, j, delay_s[i * n + j], g);

  const std::vector<double> direct_delay = delay_s;
  const std::vector<double> direct_bw = bandwidth_Bps;
  std::vector<std::size_t> parent(n);
  std::vector<double> distance(n);
  for (std::size_t src = 0; src < n; ++src) {
    boost::dijkstra_shortest_paths(
        g, src, boost::predecessor_map(parent.data()).distance_map(distance.data()));
    for (std::size_t dst = 0; dst < n; ++dst) {
      if (dst == src || !std::isnan(direct_delay[src * n + dst])) continue;
      if (parent[dst] == dst) {
        result.unreachable.emplace_back(src, dst);
        continue;
      }
      double bottleneck = std::numeric_limits<double>::infinity();
      for (std::size_t v = dst; v != src; v = parent[v])
        bottleneck = std::min(bottleneck, direct_bw[parent[v] * n + v]);
      delay_s[src * n + dst] = distance[dst];
      bandwidth_Bps[src * n + dst] = bottleneck;
      ++result.routed_pairs;
    }
  }
  return result;
}

}  // namespace geotrain
