#pragma once
// Per-op and per-iteration measurements of one worker, written as CSV files the simulator's
// results can be compared with (ops.csv: rank, op, label, kind, start_s, end_s, bytes, step, cpu_s;
// iterations.csv: step, time_s, loss, tokens_per_s, host_busy_s). Times are seconds since the run's common
// epoch (agreed through the store). Recording is a push_back into a reserved vector: the timing
// overhead is two clock reads per op.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace geotrain {

struct OpRecord {
  int step = 0;
  int op = 0;
  double start_s = 0;
  double end_s = 0;
  double bytes = 0;  // bytes this rank sent for the op (-1: not countable, library collective)
  // CPU time the worker's thread used in a Compute op (NaN for other ops). With one torch thread
  // it is the op's uncontended duration: waits for data and sleeps use none, and when more ranks
  // than cores compute at once the wall time stretches but this does not
  // (docs/simulator-models.md, "host cores").
  double cpu_s = std::numeric_limits<double>::quiet_NaN();
};

// What a Dynamic op decided at run time (dynamic.csv: step, op, rule, round, members, decided_s):
// the ranks that averaged together (partial reduce: the window's members; gossip: this rank and
// its partner; a lone member averages with nobody), to be compared with the simulator's rounds.
struct DynamicRecord {
  int step = 0;
  int op = 0;
  std::string rule;
  std::int64_t round = 0;    // the rank's k-th run of this op
  std::vector<int> members;  // ranks, ascending
  double decided_s = 0;      // when the rank learnt the decision
};

struct IterationRecord {
  int step = 0;
  double time_s = 0;
  double loss = 0;  // NaN on ranks that do not compute the loss (not the last stage)
  double tokens_per_s = 0;
  double host_busy_s = std::numeric_limits<double>::quiet_NaN();  // host_cpu.hpp, at the step's end
};

class Measurements {
 public:
  Measurements(int rank, std::vector<std::string> labels, std::vector<std::string> kinds);

  void reserve(std::size_t ops) { ops_.reserve(ops); }
  void record_op(const OpRecord& r) { ops_.push_back(r); }
  void record_dynamic(DynamicRecord r) { dynamic_.push_back(std::move(r)); }
  void record_iteration(const IterationRecord& r) { iterations_.push_back(r); }
  const std::vector<OpRecord>& ops() const { return ops_; }
  const std::vector<IterationRecord>& iterations() const { return iterations_; }

  const std::vector<DynamicRecord>& dynamic() const { return dynamic_; }

  // Writes ops.csv and iterations.csv (and dynamic.csv when the Program has Dynamic ops) into
  // `dir` (created if missing); throws Error on failure.
  void write(const std::string& dir) const;

 private:
  int rank_;
  std::vector<std::string> labels_;  // per op of the rank's Program
  std::vector<std::string> kinds_;
  std::vector<OpRecord> ops_;
  std::vector<IterationRecord> iterations_;
  std::vector<DynamicRecord> dynamic_;
};

}  // namespace geotrain
