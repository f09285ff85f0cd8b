#pragma once
// The move gains of DT-FM's cyclic local search (Kim & Moon's cyclic partitioning, as the
// original applies it). A rule keeps incremental state for the current device -> group labels
// and reports, for every group p, the best single move out of p:
//   g_i[p]            the gain of that move (-inf when p has no unlocked device)
//   g_ij[p * S + q]   the best gain of moving a device of p to q
//   move_v[p], move_to[p]  the device and its target (-1 when none)
#include <limits>
#include <vector>

namespace geotrain {

struct GainTable {
  std::vector<double> g_i;
  std::vector<double> g_ij;
  std::vector<int> move_v;
  std::vector<int> move_to;

  // No gain anywhere yet, for `stages` groups: every rule's compute() starts from this.
  void clear(int stages) {
    const auto n = static_cast<std::size_t>(stages);
    g_i.assign(n, -std::numeric_limits<double>::infinity());
    g_ij.assign(n * n, -std::numeric_limits<double>::infinity());
    move_v.assign(n, -1);
    move_to.assign(n, -1);
  }
};

class GainRule {
 public:
  virtual ~GainRule() = default;
  virtual void reset(const std::vector<int>& group_of) = 0;
  // Device v moves from group `from` to group `to` (called for every move, undo moves too).
  virtual void move(int v, int from, int to) = 0;
  virtual void compute(const std::vector<char>& locked, GainTable& out) const = 0;
};

}  // namespace geotrain
