#pragma once
// iterations.csv of a run: one row per training step (iteration),
//   step,time_s,loss,tokens_per_s,bytes
// time_s = the step's completion interval (sim/common/iteration_intervals.hpp), loss = the mean
// of the ranks that compute it (empty: none does), bytes = counted by all ranks (empty: not
// countable). Written by the executors that measure steps (emu; real/ next).
#include <ostream>
#include <vector>

namespace geotrain::results {

struct IterationRow {
  int step = 0;
  double time_s = 0;        // completion interval: last rank done with this step - with the previous
  double loss = 0;          // NaN if no rank reported one
  double tokens_per_s = 0;  // tokens of one iteration / time_s
  double bytes = -1;        // counted bytes of all ranks in the step (-1: not countable)
};

void write_iterations_csv(const std::vector<IterationRow>& rows, std::ostream& out);

}  // namespace geotrain::results
