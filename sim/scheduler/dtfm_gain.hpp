#pragma once
// DT-FM's default gain ("calculate_gain_default" in the original scheduler). For device v in
// group p, both sides priced with pipeline transfers t(v, u) = d + A / b:
//   own(v)    = min over other members u of p of t(v, u)   (how tightly v sits in p)
//   avg(v, q) = mean over members u of q of t(v, u)
// Per group p the candidate is the unlocked member with the smallest own(v) (lowest id on ties),
// and its gain toward q is avg(v, q) - own(v); the best q is the move of p.
// State is incremental: member lists and own(v) are updated per move in O(K), so a whole cyclic
// pass costs O(N S K) instead of the original's O(N^3) recomputation.
#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/gain_rule.hpp"

namespace geotrain {

class DtfmGain : public GainRule {
 public:
  explicit DtfmGain(const CostModel& model) : model_(model) {}
  void reset(const std::vector<int>& group_of) override;
  void move(int v, int from, int to) override;
  void compute(const std::vector<char>& locked, GainTable& out) const override;

 private:
  void refresh_own(int v);

  const CostModel& model_;
  std::vector<int> group_of_;
  std::vector<std::vector<int>> members_;
  std::vector<double> own_;  // own(v); +inf when v is alone in its group
};

}  // namespace geotrain
