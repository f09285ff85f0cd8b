#pragma once
// Who is present in which outer round when DiLoCo workers leave and rejoin (the scenario's
// `churn:` section). A pure function of the absences: the strategy builder (sim/strategies/
// diloco.cpp) and the scenario's cross-field checks read it the same way.
//
// Rounds are Program iterations. Membership is constant within an epoch; epochs start at round 0
// and at every leave and join. A worker present in round J but not in J-1 (J > 0) rejoins at J:
// it loads the state of the lowest-ranked worker present in both J-1 and J (its source).
#include <utility>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace geotrain {

class ChurnSchedule {
 public:
  ChurnSchedule(const ChurnSpec& spec, int workers);

  int workers() const { return workers_; }
  bool present(int worker, int round) const;
  std::vector<int> present_in(int round) const;  // ascending
  // First rounds of the epochs, ascending, starting with 0.
  const std::vector<int>& epochs() const { return epochs_; }
  // Rounds [begin, end) the worker is present (end -1: to the end of the run), ascending.
  std::vector<std::pair<int, int>> present_ranges(int worker) const;
  // Workers present in `round` and absent in round - 1 (none in round 0).
  std::vector<int> joining(int round) const;
  // The lowest-ranked worker present in round - 1 and `round`; -1 when there is none.
  int state_source(int round) const;

 private:
  int workers_;
  std::vector<Absence> absences_;
  std::vector<int> epochs_;
};

}  // namespace geotrain
