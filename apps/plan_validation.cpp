#include "apps/plan_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <nlohmann/json.hpp>

#include "apps/child_process.hpp"
#include "apps/compare_run.hpp"
#include "apps/plan_summary.hpp"
#include "emu/profile/profile_key.hpp"
#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"
#include "sim/compare/error_stats.hpp"
#include "sim/compare/run_ensemble.hpp"
#include "sim/results/result_file.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/workload/compute_profile.hpp"
#include "sim/workload/compute_model.hpp"

namespace fs = std::filesystem;

namespace geotrain::cli {

namespace {

// What the suite measured for a case: the median run's figures from the committed
// comparison.json, and that run's summary.json for how it ran.
struct JudgedRun {
  double median_s = 0, mean_s = 0;
  int iterations = 0, warmup = 0, host_cores = 0, torch_threads = 0;
  std::string collectives, device;
  fs::path dir;  // the judged run's folder
  std::map<std::string, std::pair<double, double>> same_run;  // model -> (predicted_s, error_pct)
};

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open", path.string()));
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not JSON ({})", path.string(), e.what()));
  }
}

// The committed comparison names its judged run by a path from where validate ran; the run is the
// case folder's sub-folder of that name (emu, emu_run3).
JudgedRun read_judged_run(const fs::path& case_dir) try {
  const auto c = read_json(case_dir / "comparison.json");
  JudgedRun r;
  const auto& m = c.at("measured");
  r.median_s = m.at("iteration_time_s").get<double>();
  r.mean_s = m.value("mean_s", r.median_s);
  const fs::path run = case_dir / fs::path(m.at("dir").get<std::string>()).filename();
  const auto s = read_json(run / "summary.json");
  r.dir = run;
  r.iterations = s.value("iterations", 0);
  r.warmup = s.value("warmup_iterations", 0);
  r.host_cores = s.value("host_cores", 0);
  r.torch_threads = s.value("torch_threads", 0);
  r.collectives = s.value("collectives", "");
  r.device = s.value("device", "");
  for (const auto& p : c.at("predicted"))
    r.same_run[p.at("network_model").get<std::string>()] = {p.at("iteration_time_s").get<double>(),
                                                           p.at("error_pct").get<double>()};
  if (r.iterations <= 0 || r.median_s <= 0)
    throw InputError(fmt::format("{}: no iterations or iteration time (expected a measured run)", run.string()));
  return r;
} catch (const nlohmann::json::exception& e) {
  throw InputError(fmt::format("{}: {} (expected a comparison of geotrain compare and its measured run)",
                               (case_dir / "comparison.json").string(), e.what()));
}

// How fast the judged run computed against the planned profile: the run's own CPU seconds over
// the profile's, summed over the distinct Compute ops both hold (each op's median, CPU time where
// both have it). A diagnostic beside the planning error, never an input to the prediction: 1.3
// says the run's machine computed 30 % slower than the machine the profile was made on did.
// 0 when the run has no profile or no op in common.
double run_compute_ratio(const fs::path& run_dir, const std::string& planned_profile, const Scenario& s) {
  if (!fs::exists(run_dir / "compute_profile.json")) return 0;
  const auto run = read_compute_profile((run_dir / "compute_profile.json").string(), s);
  double run_s = 0, plan_s = 0;
  for (const auto& p : read_compute_profile(planned_profile, s)) {
    const auto r = std::find_if(run.begin(), run.end(), [&](const ProfileEntry& e) { return e.measures(p.op()); });
    if (r == run.end()) continue;
    const bool cpu = p.has_cpu_time() && r->has_cpu_time();
    run_s += cpu ? r->cpu_median_s : r->median_s;
    plan_s += cpu ? p.cpu_median_s : p.median_s;
  }
  return plan_s > 0 ? run_s / plan_s : 0;
}

// `geotrain profile` of `scenario` into `file`, in a process of its own: nothing of this one (or of
// a run) is in the timings. Written as <file>.partial and renamed, so `file` is always whole; the
// child's output is appended to `log`.
void profile_in_child(const fs::path& scenario, const fs::path& file, int repeat, int warmup, double min_seconds,
                      int concurrent, const std::string& log) {
  const fs::path partial = file.string() + ".partial";
  fs::remove(partial);
  run_child(self_executable(),
            {"profile", scenario.string(), "--repeat", std::to_string(repeat), "--warmup", std::to_string(warmup),
             "--min-seconds", fmt::format("{:g}", min_seconds), "--concurrent", std::to_string(concurrent), "--out",
             partial.string()},
            log);
  fs::rename(partial, file);
}

// Planned profiles by key: each made once by a `geotrain profile` child, reused after. index.json
// records the scenario each was made from and how long it took.
class PlannedProfiles {
 public:
  PlannedProfiles(std::string dir, int repeat, int warmup, double min_seconds)
      : dir_(std::move(dir)), repeat_(repeat), warmup_(warmup), min_seconds_(min_seconds) {
    fs::create_directories(dir_);
    if (fs::exists(index_path())) index_ = read_json(index_path());
    if (!index_.is_object()) index_ = nlohmann::json::object();
  }

  // The profile for scenario `s` (file `scenario`): its absolute path.
  std::string profile_for(const Scenario& s, const fs::path& scenario, PlanProfiling& profiling) {
    const auto key = profile::planned_profile_key(s, "cpu", 0);
    const fs::path file = fs::path(dir_) / (key.hash + ".json");
    if (fs::exists(file)) {
      ++profiling.reused;
      fmt::print("   planned profile {} (reused)\n", key.hash);
    } else {
      make(key, scenario, file, profiling);
    }
    // Each profile once, however many cases use it: the time profiling the suite took.
    if (index_.contains(key.hash) && counted_.insert(key.hash).second)
      profiling.all_wall_s += index_[key.hash].value("wall_s", 0.0);
    return fs::absolute(file).string();
  }

  void save() const { results::write_result_text(index_path(), index_.dump(2) + "\n"); }

 private:
  std::string index_path() const { return dir_ + "/index.json"; }

  void make(const profile::PlannedProfileKey& key, const fs::path& scenario, const fs::path& file,
            PlanProfiling& profiling) {
    fmt::print("   planned profile {}: geotrain profile {} --repeat {} --warmup {} --min-seconds {:g} ...\n",
               key.hash, scenario.filename().string(), repeat_, warmup_, min_seconds_);
    std::fflush(stdout);
    const auto t0 = std::chrono::steady_clock::now();
    profile_in_child(scenario, file, repeat_, warmup_, min_seconds_, 1, dir_ + "/" + key.hash + ".log");
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    results::write_result_text(dir_ + "/" + key.hash + ".key.txt", key.text);
    index_[key.hash] = {{"made_from", scenario.filename().string()}, {"wall_s", wall}};
    ++profiling.made;
    profiling.made_wall_s += wall;
    fmt::print("   planned profile {} made in {:.1f} s\n", key.hash, wall);
  }

  std::string dir_;
  int repeat_, warmup_;
  double min_seconds_;
  std::set<std::string> counted_;  // profiles whose making time is in PlanProfiling::all_wall_s
  nlohmann::json index_;
};

// A case's prediction for one network model: `seeds` simulations from the planned profile, the
// median one judged (as compare judges an ensemble).
struct PlannedPrediction {
  double median_s = 0, mean_s = 0, spread_pct = 0;
  double p10_s = 0, p90_s = 0;  // over the seeds' iteration times: the machine's range
};

// The machine share the prediction draws with: the simulator's own (ComputeModel on the scenario
// as predict() sets it), so the figure in plan/summary.csv is the one the seeds were drawn with.
double planned_machine_share(const std::string& profile, const Scenario& s, int host_cores) {
  Scenario planned = s;
  planned.simulation.compute_profile = profile;
  planned.simulation.compute_variance = ComputeVariance::machine;
  planned.simulation.host_cores = host_cores;
  return ComputeModel(planned).machine_share();
}

PlannedPrediction predict(const fs::path& scenario, const Scenario& s, const JudgedRun& run,
                          const std::string& profile, const std::string& model, int host_cores,
                          const PlanValidationOptions& o, const std::string& case_out) {
  const std::uint64_t first = s.simulation.variance_seed != 0 ? s.simulation.variance_seed : s.seed;
  compare::RunEnsemble e;
  if (o.seeds > 1) fs::create_directories(case_out + "/ensemble");  // the members' logs go there too
  for (int k = 0; k < std::max(1, o.seeds); ++k) {
    const std::uint64_t seed = first + static_cast<std::uint64_t>(k);
    const std::string out = k == 0 ? fmt::format("{}/sim_{}", case_out, model)
                                   : fmt::format("{}/ensemble/sim_{}_seed{}", case_out, model, seed);
    if (fs::exists(out)) fs::remove_all(out);
    std::vector<std::string> args{"simulate", scenario.string(), "--network-model", model, "--out", out,
                                  "--iterations", std::to_string(run.iterations), "--no-trace",
                                  // One state of the machine per run, each op drawn around it: the
                                  // seeds spread as runs on the profiled machine do.
                                  "--set", "simulation.compute_variance=machine",
                                  "--set", "simulation.compute_profile=" + profile,
                                  "--set", fmt::format("simulation.variance_seed={}", seed)};
    if (!run.device.empty()) args.insert(args.end(), {"--set", "emulation.device=" + run.device});
    if (!run.collectives.empty()) args.insert(args.end(), {"--set", "emulation.collectives=" + run.collectives});
    if (host_cores > 0) {
      args.insert(args.end(), {"--set", fmt::format("simulation.host_cores={}", host_cores)});
      args.insert(args.end(), {"--set", fmt::format("simulation.host_background_cores={:.4f}", o.background_cores)});
    }
    const auto effects = model_effect_sets();  // compare's, measured once on this emulator
    args.insert(args.end(), effects.begin(), effects.end());
    run_child(self_executable(), args, out + ".log");
    e.runs.push_back(compare::read_predicted_run(out, run.warmup));
  }
  const auto& judged = e.runs[compare::median_run_index(e.runs)];
  std::vector<double> times;
  for (const auto& r : e.runs) times.push_back(r.iteration_time_s);
  return {judged.iteration_time_s, compare::mean(judged.iteration_times_s), compare::run_spread_pct(e.runs),
          compare::quantile(times, 0.1), compare::quantile(times, 0.9)};
}


}  // namespace

void make_case_profile(const fs::path& scenario, const std::string& case_dir, const PlanValidationOptions& o,
                       double min_seconds, int concurrent) {
  const fs::path file = fs::path(case_dir) / kCaseProfileFile;
  const std::string log = case_dir + "/plan_profile.log";
  fs::create_directories(case_dir);
  fs::remove(file);
  fs::remove(log);  // the child appends: this case's log only
  profile_in_child(scenario, file, o.repeat, o.warmup, min_seconds, concurrent, log);
}

std::pair<std::string, std::string> suite_case_labels(const std::string& stem) {
  const auto cut = stem.find("__");
  if (cut == std::string::npos) return {stem, ""};
  return {stem.substr(0, cut), stem.substr(cut + 2)};
}

int run_plan_validation(const PlanValidationOptions& o) {
  const std::string plan_dir = path_under(o.out, {"plan"}, "--out").string();
  PlannedProfiles profiles(o.profiles.empty() ? plan_dir + "/profiles" : o.profiles, o.repeat, o.warmup,
                           o.min_seconds);
  std::vector<PlanRow> rows;
  std::vector<std::string> left_out;
  PlanProfiling profiling;
  for (const auto& file : o.cases) {
    const std::string stem = file.stem().string();
    const auto [variant, network] = suite_case_labels(stem);
    const fs::path case_dir = path_under(o.out, {stem}, "--scenarios file");
    fmt::print("== {} (planned)\n", stem);
    std::fflush(stdout);
    if (!fs::exists(case_dir / "comparison.json")) {
      fmt::print("   left out: no committed comparison.json in {} (nothing measured to judge by)\n", case_dir.string());
      left_out.push_back(stem + ": no comparison.json");
      continue;
    }
    try {
      const JudgedRun run = read_judged_run(case_dir);
      const Scenario s = load_scenario(file.string());
      // The profile made just before this case's run on its machine, where validate made one;
      // otherwise the shared folder's (made whenever and wherever --plan runs).
      const fs::path case_profile = case_dir / kCaseProfileFile;
      const bool before_run = fs::exists(case_profile);
      if (before_run) fmt::print("   planned profile {} (made before the run)\n", case_profile.string());
      const std::string profile =
          before_run ? fs::absolute(case_profile).string() : profiles.profile_for(s, file, profiling);
      // The shared cores, where the run's ranks outnumbered them and each rank ran one torch
      // thread (its CPU time is then the op's work).
      const int world = static_cast<int>(s.devices.size());
      const int host_cores = run.host_cores > 0 && world > run.host_cores && run.torch_threads == 1 ? run.host_cores : 0;
      const std::string case_out = path_under(plan_dir, {stem}, "--scenarios file").string();
      fs::create_directories(case_out);
      const double compute_ratio = run_compute_ratio(run.dir, profile, s);
      const auto at = read_profile_measured_at(profile);
      const int concurrent = at ? at->concurrent : 1;
      const double share = planned_machine_share(profile, s, host_cores);
      for (const auto& model : network_models(o.network_model)) {
        const auto p = predict(file, s, run, profile, model, host_cores, o, case_out);
        PlanRow r;
        r.variant = variant, r.network = network, r.model_preset = s.model.preset, r.network_model = model;
        r.world_size = world;
        r.measured_s = run.median_s, r.measured_mean_s = run.mean_s;
        if (const auto it = run.same_run.find(model); it != run.same_run.end())
          r.same_run_predicted_s = it->second.first, r.same_run_error_pct = it->second.second;
        r.planned_s = p.median_s, r.planning_error_pct = compare::error_pct(p.median_s, run.median_s);
        r.planned_mean_s = p.mean_s, r.planning_mean_error_pct = compare::error_pct(p.mean_s, run.mean_s);
        r.planned_spread_pct = p.spread_pct;
        r.planned_p10_s = p.p10_s, r.planned_p90_s = p.p90_s;
        r.machine_share = share;
        r.host_cores = host_cores;
        r.run_compute_ratio = compute_ratio;
        r.profile = before_run ? stem + "/" + kCaseProfileFile : fs::path(profile).filename().string();
        r.profile_before_run = before_run;
        r.profile_concurrent = concurrent;
        fmt::print("   {:<4} measured {:.4f} s  same-run {:.4f} s ({:+.1f}%)  planned {:.4f} s ({:+.1f}%), "
                   "p10-p90 {:.4f}-{:.4f} s (machine share {:.2f})\n",
                   model, r.measured_s, r.same_run_predicted_s, r.same_run_error_pct, r.planned_s,
                   r.planning_error_pct, r.planned_p10_s, r.planned_p90_s, r.machine_share);
        rows.push_back(r);
      }
    } catch (const Error& e) {
      fmt::print("   FAILED: {}\n", e.what());  // one failed case does not stop the suite
      left_out.push_back(stem + ": " + e.what());
    }
    std::fflush(stdout);
  }
  profiles.save();
  fmt::print("\n{}", write_plan_summary(plan_dir, rows, profiling, left_out));
  fmt::print("planned profiles: {} made ({:.1f} s), {} reused; the distinct profiles used took {:.1f} s to make\n",
             profiling.made, profiling.made_wall_s, profiling.reused, profiling.all_wall_s);
  fmt::print("figures: {}/summary.csv, summary.json, table.md\n", plan_dir);
  return 0;
}

}  // namespace geotrain::cli
