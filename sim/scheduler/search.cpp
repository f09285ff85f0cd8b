#include "sim/scheduler/search.hpp"

#include <algorithm>
#include <numeric>
#include <thread>

namespace geotrain {

std::vector<int> random_labels(int groups, int group_size, std::mt19937_64& rng) {
  std::vector<int> perm(static_cast<std::size_t>(groups * group_size));
  std::iota(perm.begin(), perm.end(), 0);
  for (std::size_t i = perm.size(); i > 1; --i)
    std::swap(perm[i - 1], perm[static_cast<std::size_t>(draw(rng, static_cast<int>(i)))]);
  std::vector<int> labels(perm.size());
  for (std::size_t pos = 0; pos < perm.size(); ++pos)
    labels[static_cast<std::size_t>(perm[pos])] = static_cast<int>(pos) / group_size;
  return labels;
}

void parallel_for(int count, int threads, const std::function<void(int)>& f) {
  threads = std::max(1, std::min(threads, count));
  if (threads == 1) {
    for (int i = 0; i < count; ++i) f(i);
    return;
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = t; i < count; i += threads) f(i);
    });
  for (auto& th : pool) th.join();
}

}  // namespace geotrain
