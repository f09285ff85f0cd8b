#pragma once
// DT-FM's local search after crossover ("cyclic_partitioning"/"move_cycles" in the original),
// after Kim & Moon's hybrid genetic algorithm for multiway graph partitioning.
//
// A cycle starts at the group S0 with the best move gain and follows moves group to group
// (device v of Si moves to the group its gain points at, v is locked), until it returns to S0.
// The cycle is then cut at the prefix l maximising eps_1..eps_l + tau_l (tau = the gain of
// sending the last moved device straight back to S0), later moves are undone, and the l-th device
// goes to S0 instead, so every group keeps its size. Up to S cycles run; the search keeps the
// state after the prefix of cycles with the best summed gain. Locks persist across cycles, as in
// the original. Group sizes never change.
//
// Kept as in the original (documented in README.md): the cycle loop is bounded by N moves; the
// final pick considers states 0..cycles-1 (the original never picks the last cycle's state).
#include <vector>

#include "sim/scheduler/gain_rule.hpp"

namespace geotrain {

class CyclicLocalSearch {
 public:
  CyclicLocalSearch(int groups, int devices, GainRule& rule) : groups_(groups), devices_(devices), rule_(rule) {}
  // group_of: device -> group label; improved in place.
  void run(std::vector<int>& group_of);

 private:
  struct Move {
    int v, from, to;
  };
  // One cycle from `state`; returns its gain and leaves the new state in `state`.
  double cycle(std::vector<int>& state);
  void apply(std::vector<int>& state, int v, int to);

  int groups_, devices_;
  GainRule& rule_;
  GainTable table_;
  std::vector<char> locked_v_, locked_group_;
  std::vector<Move> moves_;
  std::vector<double> eps_, tau_;
};

}  // namespace geotrain
