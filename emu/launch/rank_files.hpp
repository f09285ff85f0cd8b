#pragma once
// Reading what each geotrain-worker wrote (emu/worker/measurements.hpp):
//   ops.csv         rank,op,label,kind,start_s,end_s,bytes,step,cpu_s
//                   (bytes empty: not countable; cpu_s: the thread's CPU time, Compute ops only)
//   iterations.csv  step,time_s,loss,tokens_per_s,host_busy_s
//                   (loss empty: no loss on the rank; host_busy_s: the machine's busy CPU seconds)
// Throws InputError naming file and line for rows that do not parse.
#include <cmath>
#include <string>
#include <vector>

namespace geotrain::emu {

struct RankOpRow {
  int rank = 0, op = 0, step = 0;
  std::string label, kind;
  double start_s = 0, end_s = 0;
  double bytes = -1;  // -1: not countable (library collective)
  double cpu_s = std::nan("");  // CPU time of a Compute op's thread (NaN: other ops)
};

struct RankIterationRow {
  int step = 0;
  double time_s = 0;
  double loss = 0;  // NaN when the rank does not compute the loss
  double tokens_per_s = 0;
  double host_busy_s = std::nan("");  // the machine's busy CPU seconds at the step's end
};

std::vector<RankOpRow> read_rank_ops(const std::string& path);
std::vector<RankIterationRow> read_rank_iterations(const std::string& path);

}  // namespace geotrain::emu
