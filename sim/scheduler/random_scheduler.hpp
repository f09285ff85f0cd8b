#pragma once
// DT-FM's random baseline: population + trials random placements (a shuffled device list cut
// into stage groups in order, replica r of every stage = the r-th device of its group), each
// scored as placed (no matching, no path search: the placement a user would get by chance).
// The best one is the result; the mean of all is the "random assignment" reference.
#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/search.hpp"

namespace geotrain {

class RandomScheduler {
 public:
  explicit RandomScheduler(const CostModel& model) : model_(model) {}
  SearchResult run(const SearchOptions& options) const;

 private:
  const CostModel& model_;
};

}  // namespace geotrain
