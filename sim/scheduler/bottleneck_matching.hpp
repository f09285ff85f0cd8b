#pragma once
// Bottleneck perfect matching on a k x k cost matrix: the smallest t such that rows and columns
// can be paired one-to-one using only entries <= t (DT-FM's cost between two stage groups:
// replica r of one stage talks to exactly one replica of the next, and the slowest pair sets
// the pace).
//
// The answer is always one of the k^2 entries. We start at a lower bound (every row and every
// column needs at least its cheapest entry) and raise the threshold entry by entry, keeping a
// maximum matching up to date with Kuhn's augmenting paths on bit-set adjacency (see the .cpp).
// The original ran one Hungarian solve per removed entry; this returns the same value.
// Boost.Graph's maximum-cardinality matching is the independent oracle in the tests.
#include <cstdint>
#include <vector>

namespace geotrain {

class BottleneckMatching {
 public:
  // cost: row-major k x k. Returns the bottleneck value; when match is given it receives, for
  // every row r, the column matched to it.
  double solve(const double* cost, int k, std::vector<int>* match = nullptr);

 private:
  bool augment(int row);

  int k_ = 0;
  int words_ = 0;
  std::vector<std::uint64_t> adjacency_;  // k rows x words_ bit-sets of allowed columns
  std::vector<std::uint64_t> visited_;    // columns seen in the current augmenting search
  std::vector<int> row_of_column_;
  std::vector<int> column_of_row_;
};

}  // namespace geotrain
