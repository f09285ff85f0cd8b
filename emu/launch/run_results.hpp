#pragma once
// Turns the per-rank measurement files of a run into the run's result files, in the simulator's
// conventions (sim/engine/results_writer.hpp) so `compare` matches ops by (rank, iteration, op):
//   ops.csv        rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,
//                  idle_s,bytes_sent,peer,group   (idle_s empty: the emulator cannot split waiting
//                  from transfer; bytes_sent empty: not countable)
//   iterations.csv step,time_s,loss,tokens_per_s  (time: slowest rank; loss: mean of the ranks
//                  that compute it)
//   trace.json     Chrome/Perfetto: pid = rank, tid 0 = blocking ops, 1 = nonblocking (in flight)
//   compute profile samples from Compute ops (after the warm-up steps)
//   summary.json   median iteration time without warm-up, tokens/s, loss curve, bytes vs Program
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "emu/launch/rank_files.hpp"
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/compute_profile.hpp"

namespace geotrain::emu {

struct RankMeasurements {
  std::vector<std::vector<RankOpRow>> ops;                // per rank
  std::vector<std::vector<RankIterationRow>> iterations;  // per rank
};

// Reads <ranks_dir>/<r>/ops.csv and iterations.csv for every rank of the Program.
RankMeasurements read_rank_measurements(const std::string& ranks_dir, int world_size);

struct StepFigures {
  int step = 0;
  double time_s = 0;        // completion interval: last rank done with this step - with the previous
  double loss = 0;          // NaN if no rank reported one
  double tokens_per_s = 0;  // tokens of one iteration / time_s
  double bytes = -1;        // counted bytes of all ranks in the step (-1: not countable)
};

// Seconds from the first op's start to the last op's end over all ranks (0 without ops).
double training_span_s(const RankMeasurements& m);

// Throws Error when a rank is missing steps or ops the Program has.
std::vector<StepFigures> step_figures(const Program& program, const RankMeasurements& m);

// Median of the steps after `warmup` (all steps if there are no others).
double median_iteration_time(const std::vector<StepFigures>& steps, int warmup);

void write_ops_csv(const Program& program, const RankMeasurements& m, std::ostream& out);
void write_iterations_csv(const std::vector<StepFigures>& steps, std::ostream& out);
void write_trace(const Program& program, const RankMeasurements& m, std::ostream& out);

// Compute op durations of the steps after `warmup`, for summarize_samples().
// Compute op durations after the warm-up, each divided by its rank's device slowdown (a
// profile of the undelayed work; the simulator applies the slowdown itself).
std::vector<ProfileSample> profile_samples(const Program& program, const RankMeasurements& m, int warmup,
                                           const std::vector<double>& slowdown_of_rank = {});

struct SummaryInputs {
  int warmup = 1;
  double wall_s = 0;        // whole command, including network bring-up
  double workers_wall_s = 0;
  std::string collectives;  // p2p | gloo
};
nlohmann::ordered_json emu_summary_json(const Scenario& scenario, const Program& program,
                                        const RankMeasurements& m, const std::vector<StepFigures>& steps,
                                        const SummaryInputs& in);

}  // namespace geotrain::emu
