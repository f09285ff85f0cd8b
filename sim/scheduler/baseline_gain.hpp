#pragma once
// The original's "baseline" gain ("calculate_gain_baseline"): a Kernighan-Lin style net cost.
// For device v and group q, with t(v, u) = d + A / b and g(v, u) = d + G / b,
//   W(v, q) = sum over members u != v of q of (t(v, u) - g(v, u))
// and the gain of moving v from p to q is W(v, q) - W(v, p); every unlocked device competes
// (lowest id, then lowest q on ties). W is kept incrementally: a move changes two columns, O(N).
#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/gain_rule.hpp"

namespace geotrain {

class BaselineGain : public GainRule {
 public:
  explicit BaselineGain(const CostModel& model);
  void reset(const std::vector<int>& group_of) override;
  void move(int v, int from, int to) override;
  void compute(const std::vector<char>& locked, GainTable& out) const override;

 private:
  const CostModel& model_;
  std::vector<double> weight_;  // N x N: t(v, u) - g(v, u), 0 on the diagonal
  std::vector<int> group_of_;
  std::vector<double> w_;  // N x S: W(v, q)
};

}  // namespace geotrain
