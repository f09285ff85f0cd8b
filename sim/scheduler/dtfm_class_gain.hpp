#pragma once
// DT-FM's default gain (dtfm_gain.hpp) for networks whose devices fall into classes with
// identical links (CostModel::classes() > 0: every regional topology). Same values, bit for bit,
// as DtfmGain, computed from the c x c class table instead of the N x N matrix:
//   own(v)    depends only on v's class and its group's class counts: a c x c table per group,
//             refreshed for the two groups a move touches (O(c^2) instead of O(K) per member);
//   avg(v, q) is sum / |q| with the sum taken over q's members in DtfmGain's member order (so
//             the same additions in the same order), and it depends only on v's class. Each
//             group keeps the running sums after every member, for all c classes: a device
//             appended to a group adds one row, and one removed from position i redoes the
//             rows from i on (the members before it keep their sums), so no pass over the
//             whole group is needed;
//   the candidate of a group (unlocked member with the smallest own, lowest id on ties) is kept
//             until the group changes or the candidate gets locked.
// Why: at 4,096 devices DtfmGain's compute() reads S x S x K scattered entries of a 128 MB
// matrix after every move of the cyclic local search; this reads O(S^2 + K c) cached ones.
// Assumes what CyclicLocalSearch does: between reset() calls, devices only get locked, never
// unlocked.
#include <cstdint>
#include <vector>

#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/gain_rule.hpp"

namespace geotrain {

class DtfmClassGain : public GainRule {
 public:
  explicit DtfmClassGain(const CostModel& model);
  void reset(const std::vector<int>& group_of) override;
  void move(int v, int from, int to) override;
  void compute(const std::vector<char>& locked, GainTable& out) const override;

 private:
  void refresh_own(int g);
  void resum_from(int g, std::size_t i);
  double own(int v) const;

  const CostModel& model_;
  int c_;                          // classes
  std::vector<std::uint8_t> cls_;  // per device
  std::vector<double> cost_;       // [a * c + b] = pipeline cost from class a to class b
  std::vector<double> into_;       // [b * c + a] = cost_[a * c + b]: one member's addends for every a
  std::vector<int> group_of_;
  std::vector<std::vector<int>> members_;  // in DtfmGain's order (erase in place, append)
  std::vector<int> count_;                 // [g * c + a] members of class a in g
  std::vector<double> own_;                // [g * c + a] own() of a class-a member of g
  // prefix_[g][i * c + a]: sum of cost(a, member) over g's first i members (row 0 is zeros);
  // row |g| holds the sums avg() needs, avg_[g * c + a] the averages.
  std::vector<std::vector<double>> prefix_;
  std::vector<double> avg_;
  mutable std::vector<int> candidate_;     // per group; -1: none unlocked
  mutable std::vector<char> candidate_stale_;
};

}  // namespace geotrain
