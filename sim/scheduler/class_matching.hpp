#pragma once
// Bottleneck matching between two groups when devices fall into classes with identical links
// (a regional topology: every device of a region sees the same delay and bandwidth to every
// device of another region). Then only the class counts of the two groups matter: a perfect
// matching under threshold t exists iff Hall's condition holds on the classes, i.e. for every
// set S of classes of the first group, |members of S| <= |members of the second group's classes
// reachable from S with cost <= t|. With c classes present that is 2^c subset checks, and the
// answer is found by binary search over the <= c^2 distinct class-pair costs: independent of
// the group size K (64 x 64 matchings of the 1,024-device case cost as much as 8 x 8 ones).
#include <vector>

namespace geotrain {

class ClassMatching {
 public:
  static constexpr int kMaxClassesPerGroup = 12;
  // cost: classes x classes; count_x[a] / count_y[b] = members of class a / b in the groups
  // (equal totals). Returns the bottleneck value, or a negative number when a group spans more
  // than kMaxClassesPerGroup classes (the caller then matches devices).
  double solve(const std::vector<double>& cost, int classes, const std::vector<int>& count_x,
               const std::vector<int>& count_y);

 private:
  bool hall_holds(double threshold);

  std::vector<int> ax_, ay_, cx_, cy_;  // classes present and their counts
  std::vector<double> row_cost_;        // |ax| x |ay|
  std::vector<unsigned> reach_;         // per subset of ax: reachable ay classes
  std::vector<int> size_x_;             // per subset of ax: members
  std::vector<double> values_;
};

}  // namespace geotrain
