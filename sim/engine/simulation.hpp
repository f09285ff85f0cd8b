#pragma once
// The SimGrid executor's facade: Program + Scenario in, per-op timings and metrics out.
//
// SimGrid allows ONE simulation per process (a second engine keeps the first one's clock and
// platform): call simulate() once per process; tests and sweeps fork a child or run the
// `geotrain` binary for each simulation.
#include <optional>
#include <string>
#include <vector>

#include "sim/engine/op_recorder.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/sim_context.hpp"
#include "sim/program/program.hpp"
#include "sim/results/dynamic_csv.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::engine {

struct SimulationOptions {
  int iterations = 0;                         // 0: scenario.simulation.iterations
  std::optional<NetworkModel> network_model;  // unset: scenario.simulation.network_model
  PlatformOptions platform;
};

// Seconds per iteration and rank, averaged over iterations; they sum to the iteration time.
struct RankSplit {
  double compute_s = 0;
  double communication_s = 0;  // blocked in communication while data moved
  double idle_s = 0;           // blocked waiting for peers, or done before the slowest rank
};

struct LinkBytes {
  std::string link;
  double bytes = 0;
};

struct CollectiveBytes {
  std::string group;
  std::string label;
  std::string kind;
  std::string algorithm;  // as modelled ("ring (aggregated)" when the O(N) form ran)
  int group_size = 0;
  int instances = 0;      // member entries over all iterations
  double bytes_sent = 0;  // by all members, all iterations
};

struct SimulationResult {
  std::string scenario;
  std::string strategy;
  std::string network_model;
  std::string platform;
  std::vector<std::string> warnings;
  int world_size = 0;
  int iterations = 0;

  double makespan_s = 0;
  std::vector<double> iteration_end_s;
  double iteration_time_s = 0;  // makespan / iterations
  int steady_iterations = 0;    // begun before an asynchronous run's drain (iteration_intervals.hpp)
  int iteration_period = 1;     // program_period: compare judges windows of that many iterations
  double tokens_per_s = 0;
  double samples_per_s = 0;
  double achieved_flops = 0;     // useful (model) flop/s
  double bubble_fraction = -1;   // -1: no pipeline
  std::vector<RankSplit> ranks;
  std::vector<LinkBytes> link_bytes;  // links that carried data, by name
  std::vector<AppliedBandwidthChange> bandwidth_changes;  // network.bandwidth_changes per link
  std::vector<CollectiveBytes> collective_bytes;
  double p2p_bytes = 0;
  double collective_bytes_total = 0;
  double dynamic_bytes = 0;  // gossip exchanges and partial reduces
  // What every run of a Dynamic op decided (dynamic.csv), in the order decided; empty when the
  // Program has none.
  std::vector<results::DynamicRow> dynamic_decisions;

  OpRecorder records{{}, 0};
  double simulation_wall_s = 0;  // wall time of platform build + run
  int simulated_ranks = 0;       // ranks run as actors; the others were twins (twin_ranks.hpp)
};

// Compute times from ComputeModel(scenario). Throws InputError for programs the engine cannot run
// (collectives without a schedule), Error when the run deadlocks.
SimulationResult simulate(const Scenario& scenario, const Program& program,
                          const SimulationOptions& options = {});

// The same with compute times from `compute` (tests).
SimulationResult simulate(const Scenario& scenario, const Program& program,
                          const SimulationOptions& options, const ComputeSeconds& compute);

}  // namespace geotrain::engine
