// geotrain simulate <scenario> [--iterations N] [--out DIR] [--set key=value ...]
//                             [--network-model flow|tcp]
// Builds the scenario's Program, runs it on SimGrid, writes results/<scenario>/sim/<run-id>/
// and prints a short table.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "apps/commands.hpp"
#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"
#include "sim/engine/results_writer.hpp"
#include "sim/engine/simulation.hpp"
#include "sim/results/run_directory.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scheduler/scheduler.hpp"
#include "sim/strategies/strategy_registry.hpp"

namespace geotrain::cli {

namespace {

struct SimulateOptions {
  std::string file;
  int iterations = 0;
  std::string out;
  std::string results = "results";
  std::string network_model;
  std::vector<std::string> sets;
  bool no_trace = false;
};

void print_table(const engine::SimulationResult& r, const std::string& dir) {
  auto mean = [&](double engine::RankSplit::*f) {
    double s = 0;
    for (const auto& x : r.ranks) s += x.*f;
    return r.ranks.empty() ? 0 : s / static_cast<double>(r.ranks.size());
  };
  const double it = r.iteration_time_s > 0 ? r.iteration_time_s : 1;
  fmt::print("{} ({}, {} ranks, {} model, {} platform, {} iteration(s))\n", r.scenario, r.strategy,
             r.world_size, r.network_model, r.platform, r.iterations);
  fmt::print("  iteration time     {:>12.4f} s\n", r.iteration_time_s);
  fmt::print("  tokens/s           {:>12.1f}\n", r.tokens_per_s);
  fmt::print("  samples/s          {:>12.3f}\n", r.samples_per_s);
  fmt::print("  achieved PFLOP/s   {:>12.4f}\n", r.achieved_flops / 1e15);
  fmt::print("  compute / comm / idle (mean per rank)  {:.3f} / {:.3f} / {:.3f} s  ({:.1f}% / {:.1f}% / {:.1f}%)\n",
             mean(&engine::RankSplit::compute_s), mean(&engine::RankSplit::communication_s),
             mean(&engine::RankSplit::idle_s), 100 * mean(&engine::RankSplit::compute_s) / it,
             100 * mean(&engine::RankSplit::communication_s) / it, 100 * mean(&engine::RankSplit::idle_s) / it);
  if (r.bubble_fraction >= 0) fmt::print("  pipeline bubble    {:>12.1f} %\n", 100 * r.bubble_fraction);
  fmt::print("  bytes sent         {:>12.4g} (p2p) + {:.4g} (collectives)\n", r.p2p_bytes, r.collective_bytes_total);
  fmt::print("  simulated in       {:>12.3f} s wall\n", r.simulation_wall_s);
  for (const auto& w : r.warnings) fmt::print("  warning: {}\n", w);
  fmt::print("results: {}\n", dir);
}

int run(const SimulateOptions& o) {
  const Scenario s = load_scenario(o.file, o.sets);
  // The run directory is claimed after the simulation; a results path that would leave its
  // root (a symlink under results/) is refused now, before minutes of simulating.
  if (o.out.empty()) path_under(o.results, {s.name, "sim"}, "name");
  // placement: {kind: scheduler}: DT-FM's scheduler (scenario.scheduler) picks it first.
  std::optional<Assignment> scheduled;
  if (s.placement.kind == PlacementKind::scheduler) scheduled = schedule_assignment(s);
  const Program program = build_program(s, scheduled ? &*scheduled : nullptr);
  engine::SimulationOptions options;
  options.iterations = o.iterations;
  if (!o.network_model.empty())
    options.network_model = o.network_model == "tcp" ? NetworkModel::tcp : NetworkModel::flow;
  const auto result = engine::simulate(s, program, options);
  const std::string dir = results::claim_directory(o.results, s.name, "sim", o.out);
  engine::write_results(dir, s, program, result, {o.sets, !o.no_trace});
  if (scheduled) write_assignment(dir + "/assignment.json", *scheduled);
  print_table(result, dir);
  return 0;
}

}  // namespace

void add_simulate_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("simulate", "predict a training iteration on SimGrid");
  auto o = std::make_shared<SimulateOptions>();
  cmd->add_option("scenario", o->file, "scenario YAML file")->required();
  cmd->add_option("--iterations", o->iterations, "iterations to simulate (default: simulation.iterations)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--out", o->out, "write the results here (default: results/<scenario>/sim/<NNN>/)");
  cmd->add_option("--results", o->results, "results root for the default run directory");
  cmd->add_option("--set", o->sets, "override a scenario key: key.path=value (repeatable)");
  cmd->add_option("--network-model", o->network_model, "flow or tcp (default: simulation.network_model)")
      ->check(CLI::IsMember({"flow", "tcp"}));
  cmd->add_flag("--no-trace", o->no_trace, "skip trace.json (large runs)");
  cmd->callback([&action, o] { action = [o] { return run(*o); }; });
}

}  // namespace geotrain::cli
