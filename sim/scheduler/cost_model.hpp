#pragma once
// DT-FM's scheduler cost model (Yuan et al., NeurIPS 2022, Sec. 3; reference formulas in
// docs/dtfm-cases.md), for any number of stages S and replicas K (N = S x K devices).
//
// A candidate partition is S groups of K devices; a group holds the data-parallel replicas of one
// stage, which stage being decided by the pipeline path below. With d in seconds, b in bytes/s,
// G the gradient bytes of one stage and A the activation bytes one task sends:
//   data parallel:  c_i = sum_{j in P, j != i} 2 (d_ij + G / (b_ij K)),  DP = max_{P, i in P} c_i
//   pipeline:       cost[X][Y] = bottleneck perfect matching of X and Y under d + A / b,
//                   PP = cheapest open path over the groups under cost[][]
//   total = DP + 2 PP   (activations forward and gradients backward cross every boundary)
// pp_cost_s in the results already includes the factor 2.
#include <vector>

#include "sim/program/assignment.hpp"
#include "sim/topology/topology.hpp"

namespace geotrain {

using Partition = std::vector<std::vector<int>>;  // groups[g] = device ids (unordered)

struct CostBreakdown {
  double dp_cost_s = 0;
  double pp_cost_s = 0;  // 2 x path cost
  double total_cost_s = 0;
  std::vector<int> path;  // group indices from stage 0 to stage S-1
};

class CostModel {
 public:
  CostModel(const Topology& network, int stages, int replicas, double gradient_bytes,
            double activation_bytes);

  int stages() const { return stages_; }
  int replicas() const { return replicas_; }
  int devices() const { return devices_; }
  double gradient_bytes() const { return gradient_bytes_; }
  double activation_bytes() const { return activation_bytes_; }

  // d + A / b: one activation transfer from i to j.
  double pp_pair_s(int i, int j) const { return pp_[index(i, j)]; }
  // 2 (d + G / (b K)): i's share of one data-parallel exchange with j.
  double dp_pair_s(int i, int j) const { return dp_[index(i, j)]; }
  // d + G / b: the per-pair gradient cost the original's "baseline" gain uses.
  double gradient_pair_s(int i, int j) const { return delay_s_[index(i, j)] + gradient_bytes_ / bandwidth_Bps_[index(i, j)]; }

  double group_dp_cost_s(const std::vector<int>& group) const;
  double dp_cost_s(const Partition& groups) const;
  // Bottleneck matching value between two groups (rows = from, columns = to). Without `match`
  // and when links are uniform per class pair (see classes_), it is solved on class counts.
  double group_pair_cost_s(const std::vector<int>& from, const std::vector<int>& to,
                           std::vector<int>* match = nullptr) const;

  // DT-FM's score of a partition: best matchings and best pipeline path.
  CostBreakdown evaluate(const Partition& groups) const;
  // The placement that realises evaluate(): stage s = groups[path[s]], replicas chained through
  // the bottleneck matchings of consecutive stages.
  Assignment realise(const Partition& groups, const CostBreakdown& cost) const;
  // Score of a fixed placement: stage order and replica pairing as given (what simulate runs;
  // DT-FM's random baseline is scored this way). path = 0..S-1.
  CostBreakdown evaluate_fixed(const Assignment& a) const;

  // groups from a device -> group label vector (members in ascending device order).
  Partition partition_of(const std::vector<int>& group_of) const;

  // Device classes with identical links (a regional topology; see classes_): 0 when the
  // pipeline costs are not uniform per class pair. Then pp_pair_s(i, j) == class_pp_s(class_of(i),
  // class_of(j)) exactly for i != j, so callers can read a c x c table instead of the N x N one.
  int classes() const { return classes_; }
  int class_of(int v) const { return class_of_[static_cast<std::size_t>(v)]; }
  double class_pp_s(int a, int b) const { return class_pp_[static_cast<std::size_t>(a * classes_ + b)]; }

 private:
  std::size_t index(int i, int j) const {
    return static_cast<std::size_t>(i) * static_cast<std::size_t>(devices_) + static_cast<std::size_t>(j);
  }

  int stages_, replicas_, devices_;
  double gradient_bytes_, activation_bytes_;
  void detect_classes(const Topology& network);
  double group_dp_by_class(const std::vector<int>& group) const;

  std::vector<double> delay_s_, bandwidth_Bps_, pp_, dp_;  // dense N x N
  // Devices with identical links to everyone (the regions of a regional topology, verified
  // exactly); classes_ = 0 when they are not uniform and matchings go device by device.
  int classes_ = 0;
  std::vector<int> class_of_;
  std::vector<double> class_pp_;  // classes_ x classes_
  // The same for the data-parallel pair costs, when they too are uniform per class pair (empty
  // otherwise): group DP costs then read a table of a few cache lines instead of scattered
  // entries of the N x N matrix (128 MB at 4,096 devices).
  std::vector<double> class_dp_;
};

}  // namespace geotrain
