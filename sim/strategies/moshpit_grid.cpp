#include "sim/strategies/moshpit_grid.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "sim/common/small_math.hpp"
#include "sim/program/dynamic_rules.hpp"

namespace geotrain {

namespace {

int grid_side(int workers, int dims) {
  int side = std::max(1, static_cast<int>(std::floor(std::pow(workers, 1.0 / dims))));
  const auto cells = [&](int s) {
    double c = 1;
    for (int d = 0; d < dims; ++d) c *= s;
    return c;
  };
  while (cells(side) < workers) ++side;  // pow's rounding either way
  while (side > 1 && cells(side - 1) >= workers) --side;
  return side;
}

}  // namespace

MoshpitGrid moshpit_grid(int workers, int dims, std::uint64_t seed) {
  MoshpitGrid g;
  g.dims = dims;
  g.side = grid_side(workers, dims);
  std::int64_t cells = 1;
  for (int d = 0; d < dims; ++d) cells *= g.side;
  // The workers take the first `workers` cells of a seeded shuffle of all cells (Fisher-Yates
  // on counter-based draws: the same cells in every executor).
  std::vector<std::int64_t> order(static_cast<std::size_t>(cells));
  std::iota(order.begin(), order.end(), 0);
  for (std::int64_t i = cells - 1; i > 0; --i) {
    const auto j = static_cast<std::int64_t>(unit_draw(seed, 0x6d6f7368ULL, static_cast<std::uint64_t>(i)) *
                                             static_cast<double>(i + 1));
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(std::min(j, i))]);
  }
  g.groups.resize(at(dims));
  for (int a = 0; a < dims; ++a) {
    std::map<std::int64_t, std::vector<int>> lines;  // cell with coordinate a zeroed -> workers
    std::int64_t stride = 1;
    for (int d = 0; d < a; ++d) stride *= g.side;
    for (int w = 0; w < workers; ++w) {
      const std::int64_t cell = order[at(w)];
      const std::int64_t coordinate = (cell / stride) % g.side;
      lines[cell - coordinate * stride].push_back(w);
    }
    for (auto& [key, members] : lines) g.groups[at(a)].push_back(std::move(members));
  }
  return g;
}

}  // namespace geotrain
