#pragma once
// Turns the per-rank measurement files of a run into the run's result files, written by the
// executor-neutral writers of sim/results/ (the simulator's too), so `compare` matches ops by
// (rank, iteration, op); this is the emulator's adapter that fills their rows:
//   ops.csv        rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,
//                  idle_s,bytes_sent,peer,group   (idle_s empty: the emulator cannot split waiting
//                  from transfer; bytes_sent empty: not countable)
//   iterations.csv step,time_s,loss,tokens_per_s,bytes  (sim/results/iterations_csv.hpp)
//   trace.json     Chrome/Perfetto: pid = rank, tid 0 = blocking ops, 1 = nonblocking (in flight)
//   compute profile samples from Compute ops (after the warm-up steps)
//   summary.json   median iteration time without warm-up, tokens/s, loss curve, bytes vs Program
#include <limits>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "emu/launch/rank_files.hpp"
#include "sim/results/iterations_csv.hpp"
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

// A step's figures are the rows of iterations.csv.
using StepFigures = results::IterationRow;

// Seconds from the first op's start to the last op's end over all ranks (0 without ops).
double training_span_s(const RankMeasurements& m);

// Throws Error when a rank is missing steps or ops the Program has.
std::vector<StepFigures> step_figures(const Program& program, const RankMeasurements& m);

// Steps that began before the drain of an asynchronous run (sim/common/iteration_intervals.hpp):
// all of them for a synchronous one.
int steady_steps(const RankMeasurements& m, int steps);

// Median of the judged steps (judged_iterations, sim/common/iteration_intervals.hpp: from the
// warm-up to the drain), the figure `compare` judges; with period > 1 (program_period) the
// median of the means of `period` consecutive judged steps (judged_times).
double median_iteration_time(const std::vector<StepFigures>& steps, int warmup,
                             int steady = std::numeric_limits<int>::max(), int period = 1);

// Times printed to the nanosecond (measured clocks), idle_s empty, bytes_sent empty where the
// worker could not count them.
void write_ops_csv(const Program& program, const RankMeasurements& m, std::ostream& out);
void write_trace(const Program& program, const RankMeasurements& m, std::ostream& out);

// Compute op durations for summarize_samples(), those of the first `warmup` steps flagged
// ProfileSample::warmup (kept apart from the medians; the simulation replays them): each less the
// seeded straggler sleep the worker took inside it (`stragglers`, the scenario's), then divided
// by its rank's device slowdown (a profile of the undelayed work; the simulator applies the
// sleep and the slowdown itself).
std::vector<ProfileSample> profile_samples(const Program& program, const RankMeasurements& m, int warmup,
                                           const std::vector<double>& slowdown_of_rank = {},
                                           const StragglerSpec& stragglers = {});

struct SummaryInputs {
  int warmup = 1;
  double wall_s = 0;        // whole command, including network bring-up
  double workers_wall_s = 0;
  std::string collectives;  // p2p | gloo | nccl (the run's emulation.collectives)
  std::string executor = "emu";  // emu | real: summary.json's format is geotrain-<executor>-summary
  // CPUs the ranks shared (emulate: all ranks on this machine); 0 when each rank had its own
  // machine (real run). compare's host-cores model reads it.
  int host_cores = 0;
  std::string device = "cpu";      // cpu | cuda: where the workers trained
  std::string backend = "gloo";    // gloo | nccl: the transport of their process groups
  // How the ranks' links were made: emulate's "shaped (network namespaces)" or "unshaped
  // (loopback)" (worker_specs.hpp); real run's "real hosts". compare warns about unshaped runs.
  std::string network = "";
};
nlohmann::ordered_json emu_summary_json(const Scenario& scenario, const Program& program,
                                        const RankMeasurements& m, const std::vector<StepFigures>& steps,
                                        const SummaryInputs& in);

// The run's result files from what its workers measured (m, read from <dir>/ranks/R/), written
// once for every executor that runs geotrain-worker (`geotrain emulate`, `geotrain real run`):
// ops.csv, iterations.csv, trace.json, dynamic.csv (ranks' run-time decisions, when any),
// compute_profile.json and summary.json (format geotrain-<in.executor>-summary). Returns the summary.
nlohmann::ordered_json write_run_results(const Scenario& scenario, const Program& program,
                                         const std::string& dir, const RankMeasurements& m,
                                         const SummaryInputs& in);

}  // namespace geotrain::emu
