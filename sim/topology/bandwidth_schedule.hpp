#pragma once
// Time-varying link bandwidth: the ONE resolution of `network.bandwidth_changes` that the
// simulator (SimGrid bandwidth profiles) and the emulator (timed `tc class change`) both apply,
// so they see the same schedule. Pure: no SimGrid, no system calls; seeded entries draw with
// unit_draw (dynamic_rules.hpp), a function of the scenario alone.
//
// Semantics: each step sets the factor of the pairs it selects from its time on (it does not
// compound with earlier ones); steps are ordered by time, entries at the same time in file
// order, so later entries win. A pair nobody selected has factor 1. Times are seconds from the
// start of the run (simulated time 0; the emulator's workers starting to train).
#include <functional>
#include <string>
#include <vector>

#include "sim/topology/bandwidth_change.hpp"

namespace geotrain {

// One dated change: seeded entries expand into one step per draw.
struct BandwidthStep {
  double at_s = 0;
  double factor = 1;
  BandwidthSelector select;
  int line = 0;         // the scenario entry it comes from
  bool drawn = false;   // from a seeded entry
};

// A factor that holds from at_s on.
struct DatedFactor {
  double at_s = 0;
  double factor = 1;
  bool operator==(const DatedFactor&) const = default;
};

// One ordered device pair's factor changing at at_s.
struct PairChange {
  double at_s = 0;
  int src = 0, dst = 0;
  double factor = 1;
  bool operator==(const PairChange&) const = default;
};

class BandwidthSchedule {
 public:
  BandwidthSchedule() = default;
  BandwidthSchedule(const std::vector<BandwidthChangeSpec>& specs, Topology network);

  bool empty() const { return steps_.empty(); }
  const std::vector<BandwidthStep>& steps() const { return steps_; }
  const Topology& network() const { return network_; }

  // When the factor of whatever `selected` says a step covers changes: (time, new factor),
  // starting from 1, only real changes, several steps at one time folded into the last one.
  std::vector<DatedFactor> timeline(const std::function<bool(const BandwidthStep&)>& selected) const;
  // The same for one ordered device pair.
  std::vector<DatedFactor> pair_timeline(int src, int dst) const;
  // Every ordered pair's changes over `devices` (all when empty), ordered by (time, src, dst).
  // O(pairs x steps): meant for the emulator's few ranks and the simulator's pair platform.
  std::vector<PairChange> pair_changes(const std::vector<int>& devices = {}) const;

  // One line per step: "20 s: every link x0.25 (line 7)".
  std::vector<std::string> describe() const;

 private:
  std::vector<BandwidthStep> steps_;
  Topology network_ = Topology::regional({"all"}, {0}, {{0, 1}}, {{0, 0}});
};

}  // namespace geotrain
