#include "apps/compare_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>

#include "apps/child_process.hpp"
#include "emu/net/host_checks.hpp"
#include "sim/common/error.hpp"
#include "sim/compare/run_ensemble.hpp"
#include "sim/results/run_directory.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/workload/compute_profile.hpp"

namespace fs = std::filesystem;

namespace geotrain::cli {

namespace {

constexpr const char* kVarianceKey = "simulation.compute_variance=";

// The user's --set values for the scenario and the emulation: all but compute_variance, which
// only the simulations read, and which needs the compute profile that only they are given.
std::vector<std::string> scenario_sets(const CompareOptions& o) {
  std::vector<std::string> sets;
  for (const auto& s : o.sets)
    if (s.rfind(kVarianceKey, 0) != 0) sets.push_back(s);
  return sets;
}

// Emulates into `run` (a folder of the comparison directory `dir`); `log` names its log file.
std::string emulate(const CompareOptions& o, const std::string& dir, const std::string& run,
                    const std::string& log) {
  std::vector<std::string> args{"emulate", o.scenario, "--out", run};
  if (o.steps > 0) args.insert(args.end(), {"--steps", std::to_string(o.steps)});
  for (const auto& s : scenario_sets(o)) args.insert(args.end(), {"--set", s});
  run_child(self_executable(), args, o.quiet ? dir + "/" + log : "");
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
                                       const std::string& variance, int host_cores,
                                       std::uint64_t variance_seed) {
  std::vector<std::string> args{"simulate", o.scenario, "--network-model", model, "--out", out,
                                "--iterations", std::to_string(simulated_iterations(o, m))};
  // Before the user's --set, so `--set simulation.compute_variance=median` can turn it off.
  if (variance != "median") args.insert(args.end(), {"--set", "simulation.compute_variance=" + variance});
  for (const auto& s : o.sets) args.insert(args.end(), {"--set", s});
  // Model the collectives the measured run used (emulate --collectives may override the scenario),
  // on its device (collectives nccl needs emulation.device: cuda).
  if (!m.device.empty()) args.insert(args.end(), {"--set", "emulation.device=" + m.device});
  if (!m.collectives.empty()) args.insert(args.end(), {"--set", "emulation.collectives=" + m.collectives});
  const std::string profile = profile_of(m);
  if (fs::exists(profile)) args.insert(args.end(), {"--set", "simulation.compute_profile=" + profile});
  if (host_cores > 0) {
    args.insert(args.end(), {"--set", fmt::format("simulation.host_cores={}", host_cores)});
    // What the emulator's own work took of the machine, as measured in the same run.
    if (const auto host = read_profile_host(profile); host && host->background_cores < host_cores)
      args.insert(args.end(), {"--set", fmt::format("simulation.host_background_cores={:.4f}", host->background_cores)});
  }
  // After the user's: an ensemble member's seed is the ensemble's, not one the user set.
  if (variance_seed > 0)
    args.insert(args.end(), {"--set", fmt::format("simulation.variance_seed={}", variance_seed)});
  if (o.model_effects) {
    const auto effects = model_effect_sets();
    args.insert(args.end(), effects.begin(), effects.end());
  }
  return args;
}

void write_manifest(const std::string& dir, const std::string& measured, const std::string& profile_run,
                    const std::vector<std::vector<std::string>>& sims, const CompareOptions& o,
                    const std::string& variance, int seeds, int runs) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-compare-manifest";
  j["scenario"] = o.scenario;
  j["measured_run"] = measured;
  j["measured_run_reused"] = !o.measured.empty();
  j["predicted_from_run"] = profile_run;  // the judged (median) measured run
  j["model_effects"] = o.model_effects;
  j["host_cores"] = o.host_cores;
  j["compute_variance"] = variance;
  j["predicted_from"] = "compute_profile.json of the judged measured run (whole measured steps when "
                        "compute_variance is steps, independent draws from its samples when sampled, "
                        "else its medians; its CPU times on shared cores with host_cores), "
                        "the scenario's scaled network, rendezvous, buffered sends and TCP payload "
                        "efficiency when model_effects";
  j["seeds"] = seeds;
  j["measured_runs"] = runs;
  j["judged"] = "the median run of each side (sim/compare/run_ensemble.hpp)";
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

std::vector<std::string> network_models(const std::string& model) {
  if (model == "both") return {"flow", "tcp"};
  return {model};
}

std::vector<std::string> model_effect_sets() {
  return {"--set", "simulation.rendezvous=true", "--set", "simulation.buffered_sends=true", "--set",
          fmt::format("simulation.payload_efficiency={:.6f}", kTcpPayloadEfficiency)};
}

bool whole_run(const std::string& run) {
  return fs::exists(run + "/summary.json") && fs::exists(run + "/ops.csv");
}

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

namespace {

// A run of `emulate --unshaped` trained on loopback: its iteration times hold no shaped links,
// so only its compute can be judged against the prediction. Said once, on stderr.
void warn_if_unshaped(const compare::RunFiles& m) {
  if (m.network.rfind("unshaped", 0) != 0) return;
  fmt::print(stderr, "warning: measured run {} is {}: its links were not shaped, so the network part of "
             "this comparison is not judged (emulate without --unshaped to judge it)\n", m.dir, m.network);
  std::fflush(stderr);
}

// The ensemble's variance seeds: the scenario's (or its simulation.variance_seed) and the next
// ones; a single prediction when nothing is drawn (median compute times: every seed the same).
std::vector<std::uint64_t> ensemble_seeds(const CompareOptions& o, const Scenario& s,
                                          const std::string& variance) {
  const std::uint64_t first = s.simulation.variance_seed != 0 ? s.simulation.variance_seed : s.seed;
  const int n = variance == "median" ? 1 : std::max(1, o.seeds);
  std::vector<std::uint64_t> seeds;
  for (int k = 0; k < n; ++k) seeds.push_back(first + static_cast<std::uint64_t>(k));
  return seeds;
}

// Where member k of a model's ensemble goes: sim_<model> for the first (as without an ensemble),
// ensemble/sim_<model>_seed<N> for the others, so the comparison folder reads as before.
std::string member_dir(const std::string& dir, const std::string& model, std::size_t k, std::uint64_t seed) {
  return k == 0 ? dir + "/sim_" + model : fmt::format("{}/ensemble/sim_{}_seed{}", dir, model, seed);
}

// A re-comparison replaces its own predictions, the ensemble of an earlier one included.
void remove_predictions(const std::string& dir) {
  for (const auto& model : network_models("both")) fs::remove_all(dir + "/sim_" + model);
  fs::remove_all(dir + "/ensemble");
}

std::string extra_run_dir(const std::string& dir, int k) { return fmt::format("{}/emu_run{}", dir, k); }

// The measured runs made whatever the predictions' spread: --min-runs, in a scenario of at least
// --min-runs-world ranks (every strategy places one rank per device).
int unconditional_runs(const CompareOptions& o, const Scenario& s) {
  return static_cast<int>(s.devices.size()) >= o.min_runs_world ? std::max(1, o.min_runs) : 1;
}

// The most measured runs compare may take of scenario `s`.
int most_runs(const CompareOptions& o, const Scenario& s) { return std::max(o.runs, unconditional_runs(o, s)); }

// True when every extra run compare may take is already there to be reused (--reuse-runs into
// an --out folder that holds them): no emulation is needed for them.
bool extra_runs_reusable(const CompareOptions& o, const Scenario& s) {
  if (!o.reuse_runs || o.out.empty()) return false;
  for (int k = 2; k <= most_runs(o, s); ++k)
    if (!whole_run(extra_run_dir(o.out, k))) return false;
  return true;
}

// The extra measured runs up to run `count` (emu_run2 ...), each reused when allowed and whole,
// else emulated (when allowed); returns the ones there are. `why` says in the log why they are made.
std::vector<compare::RunFiles> extra_runs(const CompareOptions& o, const std::string& dir, int count,
                                          const std::string& why) {
  std::vector<compare::RunFiles> runs;
  for (int k = 2; k <= count; ++k) {
    const std::string run = extra_run_dir(dir, k);
    if (!(o.reuse_runs && whole_run(run))) {
      if (!o.emulate_runs) continue;
      if (fs::exists(run)) fs::remove_all(run);
      fmt::print("   measured run {} of {}{}\n", k, count, why);
      std::fflush(stdout);
      emulate(o, dir, run, fmt::format("emulate_run{}.log", k));
    }
    runs.push_back(compare::read_measured_run(run));
  }
  return runs;
}

// Every network model's ensemble of predictions (one per variance seed), from one measured run's
// profile.
struct Predictions {
  std::vector<compare::RunEnsemble> ensembles;  // one per network model
  std::vector<std::vector<std::string>> commands;
  std::string variance;  // how they drew their compute times
  std::size_t seeds = 0;
  double spread = 0;  // the largest spread of a model's ensemble, in percent
};

Predictions predict(const CompareOptions& o, const Scenario& s, const compare::RunFiles& m, int host_cores,
                    const std::string& dir, const std::vector<std::string>& models) {
  Predictions p;
  const std::string variance = default_compute_variance(m, s);
  p.variance = compute_variance(o, variance);  // the user's --set may override it
  const auto seeds = ensemble_seeds(o, s, p.variance);
  p.seeds = seeds.size();
  remove_predictions(dir);
  if (seeds.size() > 1) fs::create_directories(dir + "/ensemble");
  for (const auto& model : models) {
    compare::RunEnsemble e;
    for (std::size_t k = 0; k < seeds.size(); ++k) {
      const std::string out = member_dir(dir, model, k, seeds[k]);
      auto args = simulate_args(o, m, model, out, variance, host_cores, k == 0 ? 0 : seeds[k]);
      if (k > 0) args.push_back("--no-trace");  // the first member's trace is the one plots read
      run_child(self_executable(), args,
                k == 0 ? fmt::format("{}/simulate_{}.log", dir, model) : out + ".log");
      p.commands.push_back(args);
      e.runs.push_back(compare::read_predicted_run(out, m.warmup));
      e.seeds.push_back(seeds[k]);
    }
    p.spread = std::max(p.spread, compare::run_spread_pct(e.runs));
    p.ensembles.push_back(std::move(e));
  }
  return p;
}

}  // namespace

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
  // An emulation needs root; without it, say so before anything is written (exit 2), not after
  // the predictions when an emulate child fails.
  if (o.measured.empty() || (most_runs(o, s) > 1 && o.emulate_runs && !extra_runs_reusable(o, s)))
    emu::require_network_privileges(
        o.measured.empty()        ? "geotrain compare (it emulates the scenario)"
        : o.runs >= most_runs(o, s) ? fmt::format("geotrain compare --runs {}", o.runs)
                                    : fmt::format("geotrain compare --min-runs {}", most_runs(o, s)));
  const std::string dir = o.out.empty() ? results::claim_run_directory(o.results, s.name, "compare")
                                        : (fs::create_directories(o.out), o.out);
  const std::string measured =
      o.measured.empty() ? emulate(o, dir, dir + "/emu", "emulate.log") : o.measured;
  const compare::RunFiles m = reused ? *reused : compare::read_measured_run(measured);
  warn_if_unshaped(m);
  if (!reused) host_cores = modelled_host_cores(o, m, s);
  const auto models = network_models(o.network_model);
  // The first run's predictions decide whether to measure again (their spread).
  Predictions p = predict(o, s, m, host_cores, dir, models);
  compare::RunEnsemble measured_runs{{m}, {}};
  const bool spread_enough = o.runs > 1 && p.spread >= o.runs_if_spread_pct;
  const int count = spread_enough ? most_runs(o, s) : unconditional_runs(o, s);
  const std::string why =
      spread_enough && o.runs_if_spread_pct > 0 ? fmt::format(" (the predictions spread by {:.1f} %)", p.spread)
      : !spread_enough && count > 1 ? fmt::format(" (every scenario of {} ranks or more)", o.min_runs_world)
                                    : "";
  for (auto& r : extra_runs(o, dir, count, why)) measured_runs.runs.push_back(std::move(r));
  // The judged run is predicted from its own compute profile: a prediction takes a run's compute
  // as given, so it is judged against the run that computed so. Runs of one case can compute at
  // different paces (16 ranks on 2 cores: ps-sharded on case 4 at 16 workers computed 0.79 and
  // 0.95 s per rank and iteration in two runs), and the first run's profile would carry its pace
  // into a comparison with another run's iteration times.
  const std::size_t judged = compare::median_run_index(measured_runs.runs);
  if (judged != 0) {
    const auto& run = measured_runs.runs[judged];
    p = predict(o, s, run, modelled_host_cores(o, run, s), dir, models);
  }
  auto c = compare::compare_ensembles(measured_runs, p.ensembles, models);
  compare::write_comparison(c, dir);
  write_manifest(dir, measured, measured_runs.runs[judged].dir, p.commands, o, p.variance,
                 static_cast<int>(p.seeds), static_cast<int>(measured_runs.runs.size()));
  dir_out = dir;
  return c;
}

}  // namespace geotrain::cli
