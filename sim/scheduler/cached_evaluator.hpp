#pragma once
// The search's scorer: CostModel::evaluate's total, with the per-group and per-group-pair parts
// memoised. A child of the evolutionary search keeps most groups of its parents, so most of its
// S(S-1)/2 bottleneck matchings were already computed; only the path is solved afresh.
//
// Groups are keyed by two independent 64-bit Zobrist hashes of their member set (XOR of random
// per-device keys, so member order does not matter): a false hit needs a 128-bit collision. The
// values are the exact ones evaluate() computes (same members in the same ascending order), so
// scores do not depend on the cache; it is cleared when it grows past max_entries.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/open_path_tsp.hpp"

namespace geotrain {

class CachedEvaluator {
 public:
  explicit CachedEvaluator(const CostModel& model, std::size_t max_entries = 1 << 20);
  // Equal to model.evaluate(model.partition_of(group_of)).total_cost_s.
  double total_cost_s(const std::vector<int>& group_of);
  std::size_t hits() const { return hits_; }
  std::size_t misses() const { return misses_; }

 private:
  struct Key {
    std::uint64_t a, b;
    bool operator==(const Key& o) const { return a == o.a && b == o.b; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const { return static_cast<std::size_t>(k.a ^ (k.b * 0x9E3779B97F4A7C15ull)); }
  };
  static Key pair_key(const Key& x, const Key& y) { return {x.a * 31 + y.a * 0x9E3779B97F4A7C15ull, x.b ^ (y.b * 0xC2B2AE3D27D4EB4Full) ^ (y.b >> 29)}; }

  const CostModel& model_;
  std::size_t max_entries_;
  std::vector<std::uint64_t> key_a_, key_b_;  // per device
  std::unordered_map<Key, double, KeyHash> dp_, pair_;
  OpenPathTsp tsp_;
  Partition groups_;
  std::vector<Key> keys_;
  std::vector<double> between_;
  std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace geotrain
