#include "sim/scheduler/cached_evaluator.hpp"

#include <algorithm>
#include <random>

namespace geotrain {

CachedEvaluator::CachedEvaluator(const CostModel& model, std::size_t max_entries)
    : model_(model), max_entries_(max_entries) {
  std::mt19937_64 rng(0x5eed5eedULL);  // fixed: keys only need to be distinct, not secret
  for (int v = 0; v < model.devices(); ++v) {
    key_a_.push_back(rng());
    key_b_.push_back(rng());
  }
}

double CachedEvaluator::total_cost_s(const std::vector<int>& group_of) {
  const auto s = static_cast<std::size_t>(model_.stages());
  groups_.assign(s, {});
  keys_.assign(s, Key{0, 0});
  for (int v = 0; v < model_.devices(); ++v) {
    const auto g = static_cast<std::size_t>(group_of[static_cast<std::size_t>(v)]);
    groups_[g].push_back(v);
    keys_[g].a ^= key_a_[static_cast<std::size_t>(v)];
    keys_[g].b ^= key_b_[static_cast<std::size_t>(v)];
  }
  if (dp_.size() + pair_.size() > max_entries_) dp_.clear(), pair_.clear();
  double dp = 0;
  for (std::size_t g = 0; g < s; ++g) {
    auto [it, fresh] = dp_.try_emplace(keys_[g], 0.0);
    if (fresh) it->second = model_.group_dp_cost_s(groups_[g]);
    dp = std::max(dp, it->second);
  }
  between_.assign(s * s, 0);
  for (std::size_t x = 0; x < s; ++x)
    for (std::size_t y = x + 1; y < s; ++y) {
      auto [it, fresh] = pair_.try_emplace(pair_key(keys_[x], keys_[y]), 0.0);
      if (fresh) it->second = model_.group_pair_cost_s(groups_[x], groups_[y]), ++misses_;
      else ++hits_;
      between_[x * s + y] = between_[y * s + x] = it->second;
    }
  return dp + 2 * tsp_.solve(between_, static_cast<int>(s)).cost;
}

}  // namespace geotrain
