#pragma once
// `geotrain compare`'s work, shared with `geotrain validate`: run (or reuse) an emulation of a
// scenario, simulate the same scenario with what that run measured, compare.
//
// What the prediction may use (and nothing else; never the measured iteration times):
// - the compute profile of the run (of the judged run when there are several;
//   compute_profile.json: median duration per compute op kind, its raw samples and where each
//   was measured): the simulation draws whole measured steps
//   (simulation.compute_variance: steps, every rank's op times from one measured step per
//   iteration) when the profile records the sites, independent samples (sampled) when it has
//   samples only, so the predicted spread can be judged too; with --host-cores its CPU times
//   instead, run on as many shared cores as the run's machine had,
// - the scenario's network scaled as the emulator shapes it (emulation.bandwidth_scale,
//   delay_scale),
// - known effects of the stack, measured once on this emulator and not per run
//   (docs/simulator-models.md): Gloo's send/recv rendezvous (simulation.rendezvous) and the TCP
//   payload share of the wire rate, 1448/1514 (simulation.payload_efficiency).
#include <string>
#include <vector>

#include "sim/compare/comparison.hpp"
#include "sim/scenario/scenario.hpp"

namespace CLI {
class App;
}

namespace geotrain::cli {

// TCP payload of a full-size Ethernet frame: 1448 of 1514 bytes (timestamps option on).
constexpr double kTcpPayloadEfficiency = 1448.0 / 1514.0;

struct CompareOptions {
  std::string scenario;
  std::string measured;            // reuse this emulate run directory ("" = run one)
  std::string network_model = "both";
  std::string out;                 // the comparison directory ("" = results/<scenario>/compare/NNN)
  std::string results = "results";
  std::vector<std::string> sets;   // passed to emulate and simulate
  int steps = 0;                   // emulate --steps (0 = training.steps)
  int sim_iterations = 0;  // 0: as many as the measured run
  bool model_effects = true;       // rendezvous + payload efficiency (off: ablation)
  // Host cores (docs/simulator-models.md): model the measured run's shared CPUs with its
  // CPU times instead of using its wall times with a device per rank (the default, which was
  // the more accurate of the two on this project's runs).
  bool host_cores = false;
  bool quiet = false;              // emulation output to a log file instead of the terminal
  // Ensembles (sim/compare/run_ensemble.hpp): predictions with `seeds` variance seeds (the
  // scenario's and the next ones; only when the compute times are drawn; the first in
  // sim_<model>, the others in ensemble/sim_<model>_seed<N>), and up to `runs`
  // measured runs, the extra ones (emu_run2, ...) made only when the predictions' medians
  // spread by at least `runs_if_spread_pct` (0: always). Each side is judged by its median run.
  // `min_runs` measured runs are made whatever the spread, in scenarios of at least
  // `min_runs_world` ranks (validate: 3 from 16 ranks, where many ranks share the host's few cores
  // and one run's pace depends on how the host scheduled them: scenarios/validation/README.md).
  int seeds = 1;
  int runs = 1;
  double runs_if_spread_pct = 0;
  int min_runs = 1;
  int min_runs_world = 0;
  bool reuse_runs = false;      // an extra run already in the comparison folder is reused
  bool emulate_runs = true;     // false: only reuse (validate --reuse-only)
};

// "both" -> {"flow", "tcp"}; a single model name -> {it}.
std::vector<std::string> network_models(const std::string& model);

// The --set arguments of the stack effects compare models (rendezvous, buffered sends, TCP payload
// share), measured once on this emulator, not per run; validate --plan predicts with the same.
std::vector<std::string> model_effect_sets();

// The host cores compare models for measured run `m`: 0 without CompareOptions::host_cores;
// else the run's, or an InputError saying why the run cannot be modelled so.
int modelled_host_cores(const CompareOptions& o, const compare::RunFiles& m, const Scenario& s);

// --seeds, --runs, --runs-if-spread and --min-runs on `cmd` (compare's and validate's), writing
// into `o`; its current values are the defaults the help names.
void add_ensemble_options(CLI::App* cmd, CompareOptions& o);

// True when `run` holds a whole measured run (summary.json and ops.csv), not just the summary
// a clone keeps (git tracks no ops.csv): only such a run can be compared again.
bool whole_run(const std::string& run);

// Runs everything and writes comparison.json/.csv, ops_<model>.csv and compare_manifest.json
// into the comparison directory; returns the comparison.
compare::Comparison run_compare(const CompareOptions& o, std::string& dir_out);

}  // namespace geotrain::cli
