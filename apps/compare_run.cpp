#include "apps/compare_run.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "apps/child_process.hpp"
#include "sim/common/error.hpp"
#include "sim/results/run_directory.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace fs = std::filesystem;

namespace geotrain::cli {

namespace {

std::vector<std::string> models_of(const std::string& m) {
  if (m == "both") return {"flow", "tcp"};
  return {m};
}

std::string emulate(const CompareOptions& o, const std::string& dir) {
  const std::string run = dir + "/emu";
  std::vector<std::string> args{"emulate", o.scenario, "--out", run};
  if (o.steps > 0) args.insert(args.end(), {"--steps", std::to_string(o.steps)});
  for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
  run_child(self_executable(), args, o.quiet ? dir + "/emulate.log" : "");
  return run;
}

// As many iterations as the measured run (warm-up included, so the same ones are compared),
// unless --sim-iterations says otherwise.
int simulated_iterations(const CompareOptions& o, const compare::RunFiles& m) {
  if (o.sim_iterations > 0) return o.sim_iterations;
  return std::max(1, m.warmup + static_cast<int>(m.iterations.size()));
}

// The simulate arguments for one network model: the measured compute profile and the known
// stack effects; the network stays the scenario's.
std::vector<std::string> simulate_args(const CompareOptions& o, const compare::RunFiles& m,
                                       const std::string& model, const std::string& out) {
  std::vector<std::string> args{"simulate", o.scenario, "--network-model", model, "--out", out,
                                "--iterations", std::to_string(simulated_iterations(o, m))};
  for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
  // Model the collectives the measured run used (emulate --collectives may override the scenario).
  if (!m.collectives.empty()) args.insert(args.end(), {"--set", "emulation.collectives=" + m.collectives});
  const std::string profile = fs::absolute(m.dir + "/compute_profile.json").string();
  if (fs::exists(profile)) args.insert(args.end(), {"--set", "simulation.compute_profile=" + profile});
  if (o.model_effects) {
    args.insert(args.end(), {"--set", "simulation.rendezvous=true"});
    args.insert(args.end(), {"--set", "simulation.buffered_sends=true"});
    args.insert(args.end(), {"--set", fmt::format("simulation.payload_efficiency={:.6f}", kTcpPayloadEfficiency)});
  }
  return args;
}

void write_manifest(const std::string& dir, const std::string& measured,
                    const std::vector<std::vector<std::string>>& sims, const CompareOptions& o) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-compare-manifest";
  j["scenario"] = o.scenario;
  j["measured_run"] = measured;
  j["measured_run_reused"] = !o.measured.empty();
  j["model_effects"] = o.model_effects;
  j["predicted_from"] = "compute_profile.json of the measured run, the scenario's scaled network, "
                        "rendezvous, buffered sends and TCP payload efficiency when model_effects";
  j["simulate_commands"] = sims;
  std::ofstream(dir + "/compare_manifest.json") << j.dump(2) << "\n";
}

}  // namespace

compare::Comparison run_compare(const CompareOptions& o, std::string& dir_out) {
  const Scenario s = load_scenario(o.scenario, o.sets);
  const std::string dir = o.out.empty() ? results::claim_run_directory(o.results, s.name, "compare")
                                        : (fs::create_directories(o.out), o.out);
  const std::string measured = o.measured.empty() ? emulate(o, dir) : o.measured;
  const compare::RunFiles m = compare::read_measured_run(measured);
  std::vector<compare::RunFiles> predicted;
  std::vector<std::vector<std::string>> commands;
  const auto models = models_of(o.network_model);
  for (const auto& model : models) {
    const std::string out = dir + "/sim_" + model;
    if (fs::exists(out)) fs::remove_all(out);  // a re-comparison replaces its own predictions
    auto args = simulate_args(o, m, model, out);
    run_child(self_executable(), args, dir + "/simulate_" + model + ".log");
    commands.push_back(args);
    predicted.push_back(compare::read_predicted_run(out, m.warmup));
  }
  auto c = compare::compare_runs(m, predicted, models);
  compare::write_comparison(c, dir);
  write_manifest(dir, measured, commands, o);
  dir_out = dir;
  return c;
}

}  // namespace geotrain::cli
