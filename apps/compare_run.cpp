#include "apps/compare_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "apps/child_process.hpp"
#include "sim/common/error.hpp"
#include "sim/results/run_directory.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/workload/compute_profile.hpp"

namespace fs = std::filesystem;

namespace geotrain::cli {

namespace {

std::vector<std::string> models_of(const std::string& m) {
  if (m == "both") return {"flow", "tcp"};
  return {m};
}

constexpr const char* kVarianceKey = "simulation.compute_variance=";

// The user's --set values for the scenario and the emulation: all but compute_variance, which
// only the simulations read, and which needs the compute profile that only they are given.
std::vector<std::string> scenario_sets(const CompareOptions& o) {
  std::vector<std::string> sets;
  for (const auto& s : o.sets)
    if (s.rfind(kVarianceKey, 0) != 0) sets.push_back(s);
  return sets;
}

std::string emulate(const CompareOptions& o, const std::string& dir) {
  const std::string run = dir + "/emu";
  std::vector<std::string> args{"emulate", o.scenario, "--out", run};
  if (o.steps > 0) args.insert(args.end(), {"--steps", std::to_string(o.steps)});
  for (const auto& s : scenario_sets(o)) args.insert(args.end(), {"--set", s});
  run_child(self_executable(), args, o.quiet ? dir + "/emulate.log" : "");
  return run;
}

// As many iterations as the measured run (warm-up included, so the same ones are compared),
// unless --sim-iterations says otherwise.
int simulated_iterations(const CompareOptions& o, const compare::RunFiles& m) {
  if (o.sim_iterations > 0) return o.sim_iterations;
  // All of them, drain included: the simulated run must end the way the measured one did.
  return std::max(1, m.total_iterations);
}

std::string profile_of(const compare::RunFiles& m) {
  return fs::absolute(m.dir + "/compute_profile.json").string();
}

// How the prediction draws its compute times from the measured run's profile: whole measured
// steps when the profile says where each sample was taken (sample_sites; ranks sharing cores
// are coupled within a step, docs/simulator-models.md), else independent draws from its raw
// samples, else its medians (a profile may hold medians only).
std::string default_compute_variance(const compare::RunFiles& m, const Scenario& s) {
  if (!fs::exists(profile_of(m))) return "median";
  const auto entries = read_compute_profile(profile_of(m), s);
  if (std::any_of(entries.begin(), entries.end(),
                  [](const ProfileEntry& e) { return !e.sample_sites.empty(); }))
    return "steps";
  if (std::any_of(entries.begin(), entries.end(),
                  [](const ProfileEntry& e) { return !e.samples_s.empty(); }))
    return "sampled";
  return "median";
}

// What the simulations run with: the last `--set simulation.compute_variance=...` of the user's,
// else compare's default (which comes before the user's settings).
std::string compute_variance(const CompareOptions& o, const std::string& default_variance) {
  const std::string key = kVarianceKey;
  std::string variance = default_variance;
  for (const auto& s : o.sets)
    if (s.rfind(key, 0) == 0) variance = s.substr(key.size());
  return variance;
}

// The simulate arguments for one network model: the measured compute profile (its samples drawn
// from when it has them, so the prediction has a spread to judge) and the known stack effects;
// the network stays the scenario's.
std::vector<std::string> simulate_args(const CompareOptions& o, const compare::RunFiles& m,
                                       const std::string& model, const std::string& out,
                                       const std::string& variance, int host_cores) {
  std::vector<std::string> args{"simulate", o.scenario, "--network-model", model, "--out", out,
                                "--iterations", std::to_string(simulated_iterations(o, m))};
  // Before the user's --set, so `--set simulation.compute_variance=median` can turn it off.
  if (variance != "median") args.insert(args.end(), {"--set", "simulation.compute_variance=" + variance});
  for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
  // Model the collectives the measured run used (emulate --collectives may override the scenario).
  if (!m.collectives.empty()) args.insert(args.end(), {"--set", "emulation.collectives=" + m.collectives});
  const std::string profile = profile_of(m);
  if (fs::exists(profile)) args.insert(args.end(), {"--set", "simulation.compute_profile=" + profile});
  if (host_cores > 0) {
    args.insert(args.end(), {"--set", fmt::format("simulation.host_cores={}", host_cores)});
    // What the emulator's own work took of the machine, as measured in the same run.
    if (const auto host = read_profile_host(profile); host && host->background_cores < host_cores)
      args.insert(args.end(), {"--set", fmt::format("simulation.host_background_cores={:.4f}", host->background_cores)});
  }
  if (o.model_effects) {
    args.insert(args.end(), {"--set", "simulation.rendezvous=true"});
    args.insert(args.end(), {"--set", "simulation.buffered_sends=true"});
    args.insert(args.end(), {"--set", fmt::format("simulation.payload_efficiency={:.6f}", kTcpPayloadEfficiency)});
  }
  return args;
}

void write_manifest(const std::string& dir, const std::string& measured,
                    const std::vector<std::vector<std::string>>& sims, const CompareOptions& o,
                    const std::string& variance) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-compare-manifest";
  j["scenario"] = o.scenario;
  j["measured_run"] = measured;
  j["measured_run_reused"] = !o.measured.empty();
  j["model_effects"] = o.model_effects;
  j["host_cores"] = o.host_cores;
  j["compute_variance"] = variance;
  j["predicted_from"] = "compute_profile.json of the measured run (whole measured steps when "
                        "compute_variance is steps, independent draws from its samples when sampled, "
                        "else its medians; its CPU times on shared cores with host_cores), "
                        "the scenario's scaled network, rendezvous, buffered sends and TCP payload "
                        "efficiency when model_effects";
  j["simulate_commands"] = sims;
  std::ofstream(dir + "/compare_manifest.json") << j.dump(2) << "\n";
}

// True when every op of the run's compute_profile.json has a CPU time (read by the profile's own
// reader, as the simulation will read it).
bool profile_has_cpu_times(const compare::RunFiles& m, const Scenario& s) {
  if (!fs::exists(profile_of(m))) return false;
  const auto entries = read_compute_profile(profile_of(m), s);
  return !entries.empty() && std::all_of(entries.begin(), entries.end(),
                                         [](const ProfileEntry& e) { return e.has_cpu_time(); });
}

}  // namespace

int modelled_host_cores(const CompareOptions& o, const compare::RunFiles& m, const Scenario& s) {
  if (!o.host_cores) return 0;
  if (m.host_cores <= 0)
    throw InputError(fmt::format("--host-cores: {}/summary.json has no host_cores (expected a run of "
                                 "geotrain emulate, whose ranks share one machine)", m.dir));
  // Thread CPU time is an op's work only when torch runs it on that one thread.
  if (m.torch_threads != 1)
    throw InputError(fmt::format("--host-cores: {} ran {} torch threads per worker (expected 1: a "
                                 "thread's CPU time is then the op's work)", m.dir, m.torch_threads));
  if (!profile_has_cpu_times(m, s))
    throw InputError(fmt::format("--host-cores: {}/compute_profile.json has no CPU times (expected "
                                 "cpu_median_s on every op; re-run the emulation)", m.dir));
  return m.host_cores;
}

compare::Comparison run_compare(const CompareOptions& o, std::string& dir_out) {
  const Scenario s = load_scenario(o.scenario, scenario_sets(o));
  // The scenario was loaded without it (scenario_sets), so the user's compute_variance is
  // checked here, before anything is written.
  if (const auto v = compute_variance(o, "median"); !compute_variance_named(v))
    throw InputError(fmt::format("--set {}{}: unknown compute variance (expected median, sampled "
                                 "or steps)", kVarianceKey, v));
  // A reused run is read, and its host cores checked, before anything is written.
  std::optional<compare::RunFiles> reused;
  int host_cores = 0;
  if (!o.measured.empty()) {
    reused = compare::read_measured_run(o.measured);
    host_cores = modelled_host_cores(o, *reused, s);
  }
  const std::string dir = o.out.empty() ? results::claim_run_directory(o.results, s.name, "compare")
                                        : (fs::create_directories(o.out), o.out);
  const std::string measured = o.measured.empty() ? emulate(o, dir) : o.measured;
  const compare::RunFiles m = reused ? *reused : compare::read_measured_run(measured);
  if (!reused) host_cores = modelled_host_cores(o, m, s);
  std::vector<compare::RunFiles> predicted;
  std::vector<std::vector<std::string>> commands;
  const auto models = models_of(o.network_model);
  const std::string variance = default_compute_variance(m, s);
  for (const auto& model : models) {
    const std::string out = dir + "/sim_" + model;
    if (fs::exists(out)) fs::remove_all(out);  // a re-comparison replaces its own predictions
    auto args = simulate_args(o, m, model, out, variance, host_cores);
    run_child(self_executable(), args, dir + "/simulate_" + model + ".log");
    commands.push_back(args);
    predicted.push_back(compare::read_predicted_run(out, m.warmup));
  }
  auto c = compare::compare_runs(m, predicted, models);
  compare::write_comparison(c, dir);
  write_manifest(dir, measured, commands, o, compute_variance(o, variance));
  dir_out = dir;
  return c;
}

}  // namespace geotrain::cli
