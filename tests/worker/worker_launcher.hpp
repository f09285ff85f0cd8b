#pragma once
// Forks real geotrain-worker processes on loopback (127.0.0.1, a free port found by binding
// port 0) and collects what they wrote. Can kill one worker to test failure handling.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "emu/worker/worker_job.hpp"

namespace geotrain::test {

struct LaunchOptions {
  int steps = 3;
  std::string collectives = "p2p";
  double timeout_s = 30;
  int kill_rank = -1;          // SIGKILL this rank ...
  std::string kill_when;       // ... once its log (stderr) contains this text
};

struct WorkerRun {
  std::string dir;                           // one subfolder per rank: rank0/, rank1/, ...
  std::vector<int> exit_codes;               // per rank (128 + signal when killed)
  std::vector<double> exit_after_s;          // per rank, seconds after launch
  std::vector<std::string> stderr_text;      // per rank
  double killed_at_s = -1;                   // when kill_rank was killed
};

WorkerRun launch_workers(const WorkerJob& job, const std::string& name, const LaunchOptions& o);

// iterations.csv of one rank: step -> {time_s, loss (NaN if empty), tokens_per_s}.
struct IterationRow {
  double time_s, loss, tokens_per_s;
};
std::vector<IterationRow> read_iterations(const std::string& rank_dir);

// ops.csv of one rank: (step, op) -> bytes (-1 when empty).
std::map<std::pair<int, int>, double> read_op_bytes(const std::string& rank_dir);

// ops.csv of one rank: (step, op) -> {start_s, end_s}.
std::map<std::pair<int, int>, std::pair<double, double>> read_op_times(const std::string& rank_dir);

// dynamic.csv of one rank (what its Dynamic ops decided).
struct DynamicRow {
  int step = 0;
  int op = 0;
  std::string rule;
  std::int64_t round = 0;
  std::vector<int> members;
};
std::vector<DynamicRow> read_dynamic(const std::string& rank_dir);

}  // namespace geotrain::test
