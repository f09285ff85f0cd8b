#include "sim/scheduler/crossover.hpp"

#include <algorithm>
#include <numeric>

#include "sim/scheduler/search.hpp"

namespace geotrain {

std::vector<int> five_point_crossover(const std::vector<int>& parent1, const std::vector<int>& parent2,
                                      int groups, int group_size, std::mt19937_64& rng, int points) {
  const int n = static_cast<int>(parent1.size());
  std::vector<int> child = parent2;
  // `points` distinct devices: a partial Fisher-Yates shuffle.
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  const int take = std::min(points, n);
  for (int i = 0; i < take; ++i) {
    const int j = i + draw(rng, n - i);
    std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
    const auto p = static_cast<std::size_t>(order[static_cast<std::size_t>(i)]);
    child[p] = parent1[p];
  }
  std::vector<int> size(static_cast<std::size_t>(groups), 0);
  for (int g : child) ++size[static_cast<std::size_t>(g)];
  for (int& g : child) {
    if (size[static_cast<std::size_t>(g)] <= group_size) continue;
    const auto short_group = std::find_if(size.begin(), size.end(), [&](int s) { return s < group_size; });
    ++*short_group;
    --size[static_cast<std::size_t>(g)];
    g = static_cast<int>(short_group - size.begin());
  }
  return child;
}

}  // namespace geotrain
