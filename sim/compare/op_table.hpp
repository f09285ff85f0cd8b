#pragma once
// One row of an ops.csv: every executor writes it through sim/results/ops_csv_writer.hpp, so
// the columns are the same, and (rank, iteration, op) names the same Program op on both sides.
#include <string>
#include <vector>

namespace geotrain::compare {

enum class OpKind { compute, send, recv, collective, wait, other };

struct OpRow {
  int rank = 0;
  int iteration = 0;
  int op = 0;
  OpKind kind = OpKind::other;
  std::string label;
  bool nonblocking = false;
  double start_s = 0;
  double end_s = 0;
  int peer = -1;       // send / recv
  std::string group;   // collective
  double duration_s() const { return end_s - start_s; }
};

const char* to_string(OpKind kind);

// Reads `path`; throws InputError naming the file and line for a missing column or a bad number.
std::vector<OpRow> read_ops_csv(const std::string& path);

// Splits one CSV line (RFC 4180 quotes).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace geotrain::compare
