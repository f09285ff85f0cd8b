#pragma once
// What every scheduler takes and returns, and the small shared pieces of the searches.
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "sim/program/assignment.hpp"
#include "sim/scheduler/cost_model.hpp"

namespace geotrain {

struct SearchOptions {
  int population = 100;  // initial random candidates
  int trials = 4900;     // offspring (gcma/baseline) or further random candidates (random)
  std::uint64_t seed = 1;
  int threads = 1;  // evaluation threads; results do not depend on it
  // gcma with DT-FM's gain: structured_seeds.hpp's partitions replace the last random initial
  // candidates (false: a purely random population, as the original).
  bool structured_seeds = true;
  // Called now and then with (candidates evaluated, candidates in total, best total cost so far).
  std::function<void(int, int, double)> progress;
};

struct SearchResult {
  std::string scheduler;
  Assignment assignment;  // the best candidate as a placement (pipelines fixed)
  Partition groups;       // its stage groups in stage order
  CostBreakdown cost;     // of `assignment` (path = stage order of the original groups)
  std::vector<double> candidate_cost_s;  // every candidate in evaluation order
  std::vector<double> best_cost_s;       // best so far after each candidate (convergence curve)
  int structured_seeds = 0;              // initial candidates that came from structured_seeds()
  double elapsed_s = 0;
};

// Uniform integer in [0, n) from a 64-bit generator. The modulo bias (< n / 2^64) is irrelevant
// here, and unlike std::uniform_int_distribution it is the same on every standard library.
inline int draw(std::mt19937_64& rng, int n) { return static_cast<int>(rng() % static_cast<std::uint64_t>(n)); }

// A random balanced labelling: a Fisher-Yates permutation of the devices, position i -> group
// i / group_size (DT-FM's random candidate: a shuffled device list cut into consecutive groups).
std::vector<int> random_labels(int groups, int group_size, std::mt19937_64& rng);

// Evaluates f(i) for i in [0, count) on `threads` threads; each index is written by one thread,
// so the results do not depend on the thread count.
void parallel_for(int count, int threads, const std::function<void(int)>& f);

}  // namespace geotrain
