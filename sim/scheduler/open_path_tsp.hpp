#pragma once
// Open-path travelling salesman over stage groups: the order of groups along the pipeline that
// minimises the summed boundary cost (any start, no return), as DT-FM orders its stages.
//
// Up to exact_limit nodes (default 16) this is Held-Karp's subset dynamic programme with every
// node allowed as the start, O(2^n n^2) time and O(2^n n) memory (8 MiB at n = 16). The
// original ran one memoised recursion per start node; one table with all starts seeded gives
// the same optimum in 1/n of the work, and for symmetric costs (DT-FM's) we meet in the middle:
// only subsets up to half the nodes are expanded, then the halves are joined. Beyond the limit the exact table does not fit, and we use
// a heuristic: nearest neighbour from every start, each improved by 2-opt and Or-opt moves to a
// local optimum; the best path is returned. It is an upper bound on the optimum (tests check it
// against Held-Karp where both run).
#include <vector>

namespace geotrain {

struct OpenPath {
  double cost = 0;
  std::vector<int> order;  // every node once
};

class OpenPathTsp {
 public:
  explicit OpenPathTsp(int exact_limit = 16) : exact_limit_(exact_limit) {}
  // cost: row-major n x n (need not be symmetric; the diagonal is ignored).
  OpenPath solve(const std::vector<double>& cost, int n);
  OpenPath held_karp(const std::vector<double>& cost, int n);
  OpenPath heuristic(const std::vector<double>& cost, int n) const;

 private:
  void fill_table(const std::vector<double>& cost, int n, int max_bits);
  std::vector<int> walk_back(const std::vector<double>& cost, int n, std::size_t mask, std::size_t last) const;

  int exact_limit_;
  // [mask * stride_ + last]: cheapest path over mask ending at last; +inf where last is not in
  // mask (never written), for the layout of table_n_ nodes. stride_ = n rounded up to even.
  std::vector<double> table_;
  int table_n_ = 0;
  std::size_t stride_ = 0;
  std::vector<double> into_;   // transposed costs, rows of stride_
};

// Cost of visiting `order` left to right.
double path_cost(const std::vector<double>& cost, int n, const std::vector<int>& order);

}  // namespace geotrain
