// geotrain compare <scenario> [--measured RUN_DIR] [--network-model flow|tcp|both] [--out DIR]
//                  [--seeds K] [--runs N [--runs-if-spread PCT] [--reuse-runs]]
// Predicted vs measured: emulates the scenario (or reuses --measured), simulates it with the
// run's measured compute profile, prints the table and writes comparison.json/.csv.
#include <fmt/format.h>

#include <memory>

#include "apps/commands.hpp"
#include "apps/compare_run.hpp"

namespace geotrain::cli {

void add_ensemble_options(CLI::App* cmd, CompareOptions& o) {
  cmd->add_option("--seeds", o.seeds,
                  fmt::format("predictions per network model, with variance seeds seed, seed+1, ...; each side is "
                              "judged by its median run (default {}; 1 when compute times are not drawn)", o.seeds))
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--runs", o.runs,
                  fmt::format("measured runs (default {}): the first, then emu_run2 ... in the comparison folder", o.runs))
      ->check(CLI::Range(1, 100));
  cmd->add_option("--runs-if-spread", o.runs_if_spread_pct,
                  fmt::format("make the extra runs only when the predictions' medians spread by at least this many "
                              "percent (default {}; 0: always)", o.runs_if_spread_pct))
      ->check(CLI::Range(0.0, 1000.0));
  cmd->add_option("--min-runs", o.min_runs,
                  fmt::format("measured runs made whatever the predictions' spread, in scenarios of at least "
                              "--min-runs-world ranks (default {})", o.min_runs))
      ->check(CLI::Range(1, 100));
  cmd->add_option("--min-runs-world", o.min_runs_world,
                  fmt::format("apply --min-runs only to scenarios of at least this many ranks (default {})",
                              o.min_runs_world))
      ->check(CLI::Range(0, 1'000'000));
}

void add_compare_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("compare", "predicted (simulate) vs measured (emulate), op by op");
  auto o = std::make_shared<CompareOptions>();
  cmd->add_option("scenario", o->scenario, "scenario YAML file")->required();
  cmd->add_option("--measured", o->measured, "reuse this run directory (of `geotrain emulate` or `geotrain real run`)");
  cmd->add_option("--network-model", o->network_model, "flow, tcp or both (default both)")
      ->check(CLI::IsMember({"flow", "tcp", "both"}));
  cmd->add_option("--out", o->out, "comparison directory (default: results/<scenario>/compare/<NNN>/)");
  cmd->add_option("--results", o->results, "results root for the default directory");
  cmd->add_option("--set", o->sets, "override a scenario key for both runs: key.path=value (repeatable)");
  cmd->add_option("--steps", o->steps, "emulated training iterations (default: training.steps)")
      ->check(CLI::Range(1, 100'000'000));
  cmd->add_option("--sim-iterations", o->sim_iterations, "simulated iterations (default: as many as the measured run, warm-up included)")
      ->check(CLI::Range(1, 1000));
  cmd->add_flag("--no-model-effects{false}", o->model_effects,
                "simulate without the rendezvous delay, buffered sends and TCP payload share (ablation)");
  cmd->add_flag("--host-cores", o->host_cores,
                "model the measured run's shared CPUs with its CPU times (default: its wall times, a device per rank)");
  o->seeds = 15;  // predictions are cheap beside an emulation; a rare cycle shows in fifteen
  add_ensemble_options(cmd, *o);
  cmd->add_flag("--reuse-runs", o->reuse_runs, "reuse extra runs (emu_run2 ...) already in the --out folder");
  cmd->callback([&action, o] {
    action = [o] {
      std::string dir;
      const auto c = run_compare(*o, dir);
      fmt::print("{}results: {}\n", compare::comparison_table(c), dir);
      return 0;
    };
  });
}

}  // namespace geotrain::cli
