// Bottleneck matching and open-path TSP against brute force (and Boost.Graph's maximum
// cardinality matching) on small random instances.
#include <catch2/catch.hpp>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>
#include <numeric>
#include <random>

#include "sim/scheduler/bottleneck_matching.hpp"
#include "sim/scheduler/open_path_tsp.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace matching_tsp_test {

using namespace geotrain;

namespace {

double brute_bottleneck(const std::vector<double>& c, int k) {
  std::vector<int> perm(static_cast<std::size_t>(k));
  std::iota(perm.begin(), perm.end(), 0);
  double best = 1e300;
  do {
    double worst = -1e300;
    for (int r = 0; r < k; ++r) worst = std::max(worst, c[static_cast<std::size_t>(r * k + perm[static_cast<std::size_t>(r)])]);
    best = std::min(best, worst);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

// Is there a perfect matching using entries <= t? Boost's Edmonds on the bipartite graph.
bool boost_perfect(const std::vector<double>& c, int k, double t) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph g(static_cast<std::size_t>(2 * k));
  for (int r = 0; r < k; ++r)
    for (int col = 0; col < k; ++col)
      if (c[static_cast<std::size_t>(r * k + col)] <= t) boost::add_edge(static_cast<std::size_t>(r), static_cast<std::size_t>(k + col), g);
  std::vector<boost::graph_traits<Graph>::vertex_descriptor> mate(static_cast<std::size_t>(2 * k));
  boost::edmonds_maximum_cardinality_matching(g, &mate[0]);
  return static_cast<int>(boost::matching_size(g, &mate[0])) == k;
}

std::vector<double> random_matrix(std::mt19937_64& rng, int k, int distinct) {
  std::uniform_int_distribution<int> value(1, distinct);  // few distinct values: many ties
  std::vector<double> c(static_cast<std::size_t>(k * k));
  for (auto& x : c) x = value(rng) * 0.125;
  return c;
}

}  // namespace

TEST_CASE("bottleneck matching equals brute force on small instances", "[scheduler][matching]") {
  std::mt19937_64 rng(11);
  BottleneckMatching m;
  for (int trial = 0; trial < 300; ++trial) {
    const int k = 1 + trial % 7;
    const auto c = random_matrix(rng, k, trial % 2 ? 4 : 1000);
    std::vector<int> match;
    const double got = m.solve(c.data(), k, &match);
    REQUIRE(got == brute_bottleneck(c, k));
    // The returned matching is a permutation achieving the value.
    std::vector<int> seen(static_cast<std::size_t>(k), 0);
    for (int r = 0; r < k; ++r) {
      const int col = match[static_cast<std::size_t>(r)];
      REQUIRE(col >= 0);
      REQUIRE(++seen[static_cast<std::size_t>(col)] == 1);
      REQUIRE(c[static_cast<std::size_t>(r * k + col)] <= got);
    }
  }
}

TEST_CASE("bottleneck matching agrees with Boost.Graph on larger instances", "[scheduler][matching]") {
  std::mt19937_64 rng(12);
  BottleneckMatching m;
  for (int k : {8, 20, 64, 65, 100}) {
    const auto c = random_matrix(rng, k, 50);
    const double got = m.solve(c.data(), k);
    CHECK(boost_perfect(c, k, got));
    double below = -1;  // the largest entry under the answer must not be enough
    for (double x : c)
      if (x < got) below = std::max(below, x);
    if (below >= 0) CHECK_FALSE(boost_perfect(c, k, below));
  }
}

TEST_CASE("open-path TSP: Held-Karp equals brute force, the heuristic never beats it", "[scheduler][tsp]") {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> w(0.1, 10);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 1 + trial % 8;
    std::vector<double> c(static_cast<std::size_t>(n * n), 0);
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) c[static_cast<std::size_t>(i * n + j)] = c[static_cast<std::size_t>(j * n + i)] = w(rng);
    std::vector<int> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    double brute = 1e300;
    do brute = std::min(brute, path_cost(c, n, order));
    while (std::next_permutation(order.begin(), order.end()));
    OpenPathTsp tsp;
    const OpenPath exact = tsp.solve(c, n);
    REQUIRE(exact.cost == Approx(brute).epsilon(1e-12));
    REQUIRE(path_cost(c, n, exact.order) == Approx(exact.cost).epsilon(1e-12));
    std::vector<int> sorted = exact.order;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), 0);
    REQUIRE(sorted == all);
    const OpenPath h = tsp.heuristic(c, n);
    REQUIRE(h.cost >= exact.cost - 1e-12);
    REQUIRE(path_cost(c, n, h.order) == Approx(h.cost).epsilon(1e-12));
  }
}

TEST_CASE("open-path TSP: the heuristic finds the obvious line beyond the exact limit", "[scheduler][tsp]") {
  // Points on a line: the optimum is the sorted order, cost = span.
  const int n = 24;
  std::vector<double> c(static_cast<std::size_t>(n * n));
  std::vector<int> pos(static_cast<std::size_t>(n));
  std::iota(pos.begin(), pos.end(), 0);
  std::mt19937_64 rng(3);
  for (std::size_t i = pos.size(); i > 1; --i) std::swap(pos[i - 1], pos[rng() % i]);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) c[static_cast<std::size_t>(i * n + j)] = std::abs(pos[static_cast<std::size_t>(i)] - pos[static_cast<std::size_t>(j)]);
  OpenPathTsp tsp;
  CHECK(tsp.solve(c, n).cost == n - 1);
}

}  // namespace matching_tsp_test
