#pragma once
// Where an iteration's time goes, derived from ops.csv rows with ONE rule for both sides (the
// emulator cannot tell waiting from moving inside a transfer, so the simulator's own idle_s
// column is not used: both sides are judged by the same definition).
//
// Per rank and iteration, over the ops that block the rank (nonblocking ops run alongside):
// - compute:       Compute ops.
// - waiting:       the part of a blocking Recv before its matching Send started (k-th receive
//                  from p matches the k-th send of p to this rank in the iteration), the part of
//                  a blocking collective before the last member of that instance entered, the
//                  part of a blocking Send before its receive was posted.
// - communication: the rest of blocking Send/Recv/Collective/Wait time.
// - other:         iteration time minus the three: gaps between ops and time after the rank's
//                  last op until the iteration ends (done early, waiting for the slowest rank).
#include <map>
#include <string>
#include <vector>

#include "sim/results/ops_csv_reader.hpp"

namespace geotrain::compare {

struct Split {
  double compute_s = 0;
  double communication_s = 0;
  double waiting_s = 0;
  double other_s = 0;
};

// Mean split per rank and iteration over `iterations`, each iteration taking iteration_time_s.
Split attribute(const std::vector<results::OpRecord>& rows, const std::vector<int>& iterations,
                double iteration_time_s);

// Waiting seconds of every blocking op, by its index in `rows` (0 for the others).
std::vector<double> waiting_of_ops(const std::vector<results::OpRecord>& rows);

// One Program op (rank, op) on both sides: medians of its duration over the compared iterations.
struct OpDiff {
  int rank = 0;
  int op = 0;
  results::OpType type = results::OpType::other;
  std::string label;
  bool nonblocking = false;
  double predicted_s = 0;
  double measured_s = 0;
  double predicted_waiting_s = 0;
  double measured_waiting_s = 0;
  bool matched = false;  // present on both sides
};

std::vector<OpDiff> match_ops(const std::vector<results::OpRecord>& predicted, const std::vector<int>& predicted_iterations,
                              const std::vector<results::OpRecord>& measured, const std::vector<int>& measured_iterations);

// Sum over blocking matched ops of (predicted - measured) per kind ("compute", "send", ...).
std::map<std::string, double> difference_by_kind(const std::vector<OpDiff>& ops);

}  // namespace geotrain::compare
