#pragma once
// ops.csv of a run, written row by row (a 4,096-rank simulation has millions of rows; nothing
// is held in memory):
//   rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,idle_s,
//   bytes_sent,peer,group
// `op` is the index in the rank's Program list; peer is set for Send/Recv, group (its name) for
// collectives. Rows appear in the order they are added.
#include <ostream>

#include "sim/program/program.hpp"
#include "sim/results/op_row.hpp"

namespace geotrain::results {

class OpsCsvWriter {
 public:
  // Writes the header line.
  OpsCsvWriter(std::ostream& out, const Program& program, TimeFormat times);

  void add(const OpRow& row);

 private:
  std::ostream& out_;
  const Program& program_;
  TimeFormat times_;
};

}  // namespace geotrain::results
