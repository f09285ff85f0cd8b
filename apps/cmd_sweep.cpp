// geotrain sweep SPEC [--out DIR] [--jobs N] [--shard i/n] [--max-runs N]
// geotrain sweep --merge DIR... [--out DIR] [SPEC]
// Simulates every point x strategy of a sweep spec (sim/sweep/) and writes DIR/sweep.csv,
// DIR/sweep.json and, when python3 with matplotlib is there, the winner map DIR/winner_map.png.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>

#include "apps/child_process.hpp"
#include "apps/commands.hpp"
#include "sim/common/data_dir.hpp"
#include "sim/common/error.hpp"
#include "sim/sweep/sweep_job.hpp"
#include "sim/sweep/sweep_merge.hpp"

namespace geotrain::cli {

namespace {

struct SweepCommandOptions {
  std::string spec;
  std::string out;
  int jobs = 0;
  std::string shard = "1/1";
  // Signed: CLI11 would read -1 into an unsigned as its largest value.
  std::int64_t max_runs = static_cast<std::int64_t>(sweep::kDefaultMaxRuns);
  std::vector<std::string> merge;
  bool no_plot = false;
  std::string python = "/usr/bin/python3";
  std::string plots = data_dir() + "/plots";
};

// The map is a convenience: without python3 + matplotlib the CSV is the result.
void draw_map(const SweepCommandOptions& o, const std::string& dir) {
  const std::string script = o.plots + "/plot_sweep.py";
  if (o.no_plot || ::access(o.python.c_str(), X_OK) != 0 || !std::filesystem::exists(script))
    return;
  try {
    run_child(o.python, {"-c", "import matplotlib"}, "/dev/null");
  } catch (const SystemError&) {
    fmt::print(stderr, "sweep: no matplotlib for {}; skipping the winner map\n", o.python);
    return;
  }
  run_child(o.python, {script, dir});
}

int run(const SweepCommandOptions& o) {
  sweep::SweepOutcome outcome;
  if (!o.merge.empty()) {
    outcome = sweep::merge_sweeps({o.merge, o.out, o.spec});
  } else {
    if (o.spec.empty())
      throw InputError(
          "sweep: SPEC is required (expected a sweep spec YAML file, or --merge DIR...)");
    outcome = sweep::run_sweep(
        {o.spec, o.out, o.jobs, sweep::parse_shard(o.shard), static_cast<std::size_t>(o.max_runs)});
  }
  draw_map(o, outcome.dir);
  fmt::print("{} points, {} runs: {} done, {} skipped ({} simulated now, {} found done)\n",
             outcome.table.points, outcome.table.runs, outcome.table.ok, outcome.table.skipped,
             outcome.run.ran, outcome.run.already_done);
  fmt::print("results: {}\n", outcome.dir);
  // A sweep where nothing could run is a mistake in the base scenario, not a result.
  if (outcome.table.runs > 0 && outcome.table.ok == 0)
    throw Error(
        fmt::format("every run was skipped (the reasons are in {}/sweep.csv; is the base "
                    "scenario valid with these strategies?)",
                    outcome.dir));
  return 0;
}

}  // namespace

void add_sweep_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "sweep", "which strategy wins where: simulate a grid of scenarios x strategies");
  auto o = std::make_shared<SweepCommandOptions>();
  cmd->add_option("spec", o->spec, "sweep spec YAML (base scenario, vary, strategies)");
  cmd->add_option("--out", o->out, "results folder (default results/sweeps/<spec name>)");
  cmd->add_option("--jobs", o->jobs, "simulations in parallel (default: every core)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--shard", o->shard, "run only shard i of n (points p with p mod n = i - 1)");
  cmd->add_option("--max-runs", o->max_runs,
                  fmt::format("refuse, before any work, more runs than this in this invocation "
                              "(with --shard: in this shard; default {})",
                              sweep::kDefaultMaxRuns))
      ->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--merge", o->merge, "merge the output folders of shards into --out")
      ->expected(1, -1);
  cmd->add_flag("--no-plot", o->no_plot, "skip the winner map PNG");
  cmd->add_option("--python", o->python, "python with matplotlib (default /usr/bin/python3)");
  cmd->add_option("--plots", o->plots, "folder of the plot scripts");
  cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

}  // namespace geotrain::cli
