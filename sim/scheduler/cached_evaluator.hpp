#pragma once
// The search's scorer: CostModel::evaluate's total, with the per-group and per-group-pair parts
// memoised. A child of the evolutionary search keeps most groups of its parents, so most of its
// S(S-1)/2 bottleneck matchings were already computed.
//
// The path is memoised too, keyed by the exact S x S matrix of group pair costs: the open path
// is a function of that matrix alone, so a repeated matrix gives the same bits. Repeats are
// common: a child can come out of the local search with the groups of a candidate seen before,
// and when pair costs depend only on the class counts of the groups (regional networks) different
// groups give the same matrix. Held-Karp is ~10 M instructions at 16 groups, a lookup ~1 k.
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
  // max_entries bounds the DP and matching memo; the path memo is cleared past 4 x max_entries
  // stored matrix entries (32 MB by default).
  explicit CachedEvaluator(const CostModel& model, std::size_t max_entries = 1 << 20);
  // Equal to model.evaluate(model.partition_of(group_of)).total_cost_s.
  double total_cost_s(const std::vector<int>& group_of);
  std::size_t hits() const { return hits_; }
  std::size_t path_hits() const { return path_hits_; }
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
  double path_cost(int s);
  // Path memo: hash of the upper triangle -> entry indices; entry e's triangle is
  // path_between_[e * T .. e * T + T), its cost path_cost_[e] (T = S(S-1)/2).
  std::unordered_multimap<std::uint64_t, std::size_t> path_index_;
  std::vector<double> path_between_, path_cost_, triangle_;
  OpenPathTsp tsp_;
  Partition groups_;
  std::vector<Key> keys_;
  std::vector<double> between_;
  std::size_t hits_ = 0, misses_ = 0, path_hits_ = 0;
};

}  // namespace geotrain
