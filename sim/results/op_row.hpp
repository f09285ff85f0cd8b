#pragma once
// One row of ops.csv / one event of trace.json: what an executor knows about one run of one op
// (rank, iteration, index in the rank's Program list). Everything else a row shows (device,
// type, label, peer, group, nonblocking) is read from the Program by the writers, so every
// executor names an op the same way and `compare` matches rows by (rank, iteration, op).
#include <cstddef>
#include <optional>

namespace geotrain::results {

struct OpRow {
  int rank = 0;
  int iteration = 0;
  std::size_t op = 0;  // index in program.ranks[rank]
  double start_s = 0;  // seconds on the run's common time axis
  double end_s = 0;
  // The waiting-for-peers part of the op: the simulator knows it; a measured run cannot split
  // a real transfer into waiting and moving (empty in ops.csv, absent from the trace).
  std::optional<double> idle_s;
  // Bytes this rank put on the wire for the op; empty when not countable (a measured library
  // collective): empty in ops.csv, null in the trace.
  std::optional<double> bytes_sent;
};

// How times are printed. Simulated times are exact doubles: the shortest text that reads back
// the same value. Measured clocks have nanosecond resolution: seconds with 9 decimals in
// ops.csv, microseconds with 3 in the trace.
enum class TimeFormat { shortest, nanoseconds };

}  // namespace geotrain::results
