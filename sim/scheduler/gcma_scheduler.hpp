#pragma once
// DT-FM's search (GCMA in the original): a population of random partitions, then per trial two
// random parents (may coincide), five-point crossover, the cyclic local search, and an exact
// evaluation of the child. The child replaces the worse parent when it is no worse than parent 1
// (the original's condition `score > max(score[p1], score > score[p2])` reduces to this since
// every score exceeds 1 s); otherwise it is only archived. The result is the best candidate
// ever evaluated. `gain` picks DT-FM's gain ("gcma") or the original's simpler one ("baseline").
#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/search.hpp"

namespace geotrain {

class GcmaScheduler {
 public:
  enum class Gain { dtfm, baseline };
  GcmaScheduler(const CostModel& model, Gain gain) : model_(model), gain_(gain) {}
  SearchResult run(const SearchOptions& options) const;

 private:
  const CostModel& model_;
  Gain gain_;
};

}  // namespace geotrain
