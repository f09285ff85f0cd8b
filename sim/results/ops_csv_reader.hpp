#pragma once
// Reads an ops.csv back (the writer is ops_csv_writer.hpp): every executor writes the same
// columns, so one reader serves `compare` for simulated, emulated and real runs alike, and
// (rank, iteration, op) names the same Program op on every side.
#include <string>
#include <vector>

namespace geotrain::results {

// The `type` column: what kind of Program op the row is.
enum class OpType { compute, send, recv, collective, wait, other };
const char* to_string(OpType type);

struct OpRecord {
  int rank = 0;
  int iteration = 0;
  int op = 0;
  OpType type = OpType::other;
  std::string label;
  bool nonblocking = false;
  double start_s = 0;
  double end_s = 0;
  int peer = -1;      // send / recv
  std::string group;  // collective
  double duration_s() const { return end_s - start_s; }
};

// Throws InputError naming the file (and line) for a missing file or column, a short line or a
// number that does not parse.
std::vector<OpRecord> read_ops_csv(const std::string& path);

}  // namespace geotrain::results
