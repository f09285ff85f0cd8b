#pragma once
// Chrome / Perfetto trace (JSON trace event format) of a run, the same for every executor: one
// process per rank ("rank 3 (device 17)"), thread 0 = the rank's blocking timeline, thread 1 =
// its nonblocking ops (sends, receives and collectives in flight), one complete ("X") event per
// op with microsecond timestamps and args {iteration, op, bytes_sent[, idle_s]}. Open it in
// https://ui.perfetto.dev or chrome://tracing. Written event by event, nothing held in memory.
#include <ostream>

#include "sim/program/program.hpp"
#include "sim/results/op_row.hpp"

namespace geotrain::results {

class TraceWriter {
 public:
  // Writes the header and the names of every rank's process and threads.
  TraceWriter(std::ostream& out, const Program& program, TimeFormat times);

  void add(const OpRow& row);
  // Closes the event list; the file is valid JSON only after this.
  void finish();

 private:
  void separate();

  std::ostream& out_;
  const Program& program_;
  TimeFormat times_;
  bool first_ = true;
};

}  // namespace geotrain::results
