// Moshpit's grid (sim/strategies/moshpit_grid.hpp): every worker on one line per axis, and on a
// full grid `dims` rounds of group means give every worker the global mean (the closed form).
#include <catch2/catch.hpp>

#include <map>
#include <numeric>

#include "sim/strategies/moshpit_grid.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace moshpit_grid_test {

using namespace geotrain;

namespace {

// One round along axis a: each worker takes its group's mean.
void average_axis(const MoshpitGrid& g, int a, std::vector<double>& x) {
  for (const auto& members : g.groups[static_cast<std::size_t>(a)]) {
    double sum = 0;
    for (int w : members) sum += x[static_cast<std::size_t>(w)];
    for (int w : members) x[static_cast<std::size_t>(w)] = sum / static_cast<double>(members.size());
  }
}

}  // namespace

TEST_CASE("moshpit grid: one line per axis, full grids reach the global mean in dims rounds",
          "[program][moshpit]") {
  for (auto [workers, dims, side] : std::vector<std::tuple<int, int, int>>{{16, 2, 4}, {27, 3, 3}, {8, 1, 8}}) {
    INFO(workers << " workers, " << dims << " dims");
    const auto g = moshpit_grid(workers, dims, 7);
    CHECK(g.side == side);
    REQUIRE(static_cast<int>(g.groups.size()) == dims);
    for (const auto& axis : g.groups) {
      std::vector<int> seen(static_cast<std::size_t>(workers), 0);
      for (const auto& members : axis) {
        CHECK(static_cast<int>(members.size()) == side);
        for (int w : members) ++seen[static_cast<std::size_t>(w)];
      }
      for (int s : seen) CHECK(s == 1);
    }
    std::vector<double> x(static_cast<std::size_t>(workers));
    for (int w = 0; w < workers; ++w) x[static_cast<std::size_t>(w)] = w * w + 0.5;
    const double mean = std::accumulate(x.begin(), x.end(), 0.0) / workers;
    for (int a = 0; a < dims; ++a) average_axis(g, a, x);
    for (double v : x) CHECK(v == Approx(mean).epsilon(1e-12));
  }
}

TEST_CASE("moshpit grid: a partial grid has unequal lines, placed by the seed", "[program][moshpit]") {
  const auto a = moshpit_grid(10, 2, 1), b = moshpit_grid(10, 2, 1), c = moshpit_grid(10, 2, 2);
  CHECK(a.side == 4);
  CHECK(a.groups == b.groups);
  CHECK(a.groups != c.groups);
  std::size_t total = 0;
  for (const auto& members : a.groups[0]) total += members.size();
  CHECK(total == 10);
}

}  // namespace moshpit_grid_test
