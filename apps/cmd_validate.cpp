// geotrain validate [--scenarios DIR] [--out DIR] [--only TEXT] [--reuse | --reuse-only] [--seeds K] [--runs N]
//                   [--runs-if-spread P] [--min-runs N --min-runs-world W]
// geotrain validate --plan [--profiles DIR] [--profile-repeat K] [--background-cores C]: the error of
//                   predictions made beforehand (apps/plan_validation.hpp)
// The validation suite: `geotrain compare` on every scenarios/validation/*.yaml, then
// results/validation/summary.csv + summary.json (error statistics per network model) and plots.
// Scenario files are named <variant>__<network>.yaml (e.g. ddp_ring__case5.yaml).
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/child_process.hpp"
#include "apps/commands.hpp"
#include "apps/compare_run.hpp"
#include "apps/plan_validation.hpp"
#include "sim/common/data_dir.hpp"
#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"
#include "sim/compare/error_stats.hpp"
#include "sim/results/csv_line.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace fs = std::filesystem;

namespace geotrain::cli {

namespace {

struct ValidateOptions {
  std::string scenarios = data_dir() + "/scenarios/validation";
  std::string out = "results/validation";
  std::string only;
  bool reuse = false;  // keep existing emulations (re-simulate and re-compare only)
  bool reuse_only = false;  // and skip the cases without one
  bool plots = true;
  bool host_cores = false;  // compare --host-cores for every case
  bool plan = false;        // --plan: predictions from profiles made beforehand (apps/plan_validation.hpp)
  // A case emulated anew is first profiled (geotrain profile, this many seconds per stage at
  // least) on the machine that runs it: --plan's profile of that case (apps/plan_validation.hpp).
  bool case_profiles = true;
  double case_profile_seconds = 10;
  int case_profile_concurrent = 0;  // workers profiling at once; 0 = the case's ranks (all on this host)
  PlanValidationOptions planning;
  int steps = 0;
  // The suite's rule for runs (scenarios/validation/README.md): 15 predictions per model; five
  // measured runs where they spread by 15 % or more; three, whatever the spread, from 16 ranks.
  // Every case's compare starts from these options.
  CompareOptions ensemble = [] {
    CompareOptions e;
    e.seeds = 15;
    e.runs = 5;
    e.runs_if_spread_pct = 15;
    e.min_runs = 3;
    e.min_runs_world = 16;
    return e;
  }();
};

// A case emulated again starts from nothing: its first run (emu), its extra ones (emu_runN) and
// the profile made before them (another machine's, maybe).
void remove_measured_runs(const std::string& case_dir) {
  if (!fs::is_directory(case_dir)) return;
  for (const auto& e : fs::directory_iterator(case_dir)) {
    const auto name = e.path().filename().string();
    if (e.is_directory() && (name == "emu" || name.rfind("emu_run", 0) == 0)) fs::remove_all(e.path());
  }
  fs::remove(fs::path(case_dir) / kCaseProfileFile);
}

// The ranks a case's emulation puts on this host: all of its devices.
int case_ranks(const fs::path& scenario) { return static_cast<int>(load_scenario(scenario.string()).devices.size()); }

std::vector<fs::path> suite(const ValidateOptions& o) {
  std::vector<fs::path> files;
  if (!fs::is_directory(o.scenarios))
    throw InputError(fmt::format("--scenarios {}: not a directory (expected scenarios/validation)", o.scenarios));
  for (const auto& e : fs::directory_iterator(o.scenarios))
    if (e.path().extension() == ".yaml" && e.path().stem().string().find(o.only) != std::string::npos)
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(fmt::format("{}: no scenario matches '{}'", o.scenarios, o.only));
  return files;
}


nlohmann::ordered_json stats_json(const compare::ErrorStats& s) {
  return {{"cases", s.cases},           {"median_abs_error_pct", s.median_abs_pct},
          {"mean_abs_error_pct", s.mean_abs_pct}, {"max_abs_error_pct", s.max_abs_pct},
          {"within_5_pct", s.within_5_pct}, {"within_15_pct", s.within_15_pct}};
}

// Signed errors per network model, over the cases: of the median (the judged figure), of the
// mean and of the p90 of the same completion intervals.
struct SuiteErrors {
  std::map<std::string, std::vector<double>> median, mean, p90;
};

void write_summary(const ValidateOptions& o, const std::string& csv, const SuiteErrors& errors,
                   nlohmann::ordered_json cases) {
  std::ofstream(o.out + "/summary.csv") << "variant,network," << compare::comparison_csv_header() << "\n" << csv;
  nlohmann::ordered_json j;
  j["format"] = "geotrain-validation-summary";
  auto& by_model = j["error_by_network_model"] = nlohmann::ordered_json::object();
  for (const auto& [model, e] : errors.median) {
    const auto s = compare::error_stats(e);
    const auto p90 = compare::error_stats(errors.p90.at(model));
    by_model[model] = stats_json(s);
    fmt::print("{:<5} {} cases: median |error| {:.1f}% (p90 {:.1f}%), mean {:.1f}%, max {:.1f}%, {} within 5%, "
               "{} within 15%\n",
               model, s.cases, s.median_abs_pct, p90.median_abs_pct, s.mean_abs_pct, s.max_abs_pct,
               s.within_5_pct, s.within_15_pct);
  }
  // The spread: the same cases judged on the p90 of the intervals (the slow iterations).
  auto& by_p90 = j["p90_error_by_network_model"] = nlohmann::ordered_json::object();
  for (const auto& [model, e] : errors.p90) by_p90[model] = stats_json(compare::error_stats(e));
  // The same cases judged on the mean completion interval (throughput) instead of the median.
  auto& by_mean = j["mean_interval_error_by_network_model"] = nlohmann::ordered_json::object();
  for (const auto& [model, e] : errors.mean) {
    const auto s = compare::error_stats(e);
    by_mean[model] = stats_json(s);
    fmt::print("{:<5} on mean intervals: median |error| {:.1f}%, max {:.1f}%, {} within 5%, {} within 15%\n",
               model, s.median_abs_pct, s.max_abs_pct, s.within_5_pct, s.within_15_pct);
  }
  j["cases"] = std::move(cases);
  std::ofstream(o.out + "/summary.json") << j.dump(2) << "\n";
}

// A case whose run data a clone does not have (git keeps comparison.csv, not ops.csv): its
// committed comparison rows go into the summary as they are, so `--reuse-only` on a clone
// rewrites the summary over the whole suite, not just the cases emulated here. False when the
// case has no comparison.csv of the current columns.
bool keep_committed_comparison(const std::string& case_dir, const std::string& prefix,
                               std::string& csv, SuiteErrors& errors) {
  std::ifstream in(case_dir + "/comparison.csv");
  std::string header, line, rows;
  const std::string current = compare::comparison_csv_header();
  // An older file has the first columns of today's (new ones go at the end): its rows are padded
  // with empty fields, unknown rather than made up.
  if (!in || !std::getline(in, header) || current.rfind(header, 0) != 0 ||
      (header.size() < current.size() && current[header.size()] != ','))
    return false;
  const results::CsvHeader columns(case_dir + "/comparison.csv", header);
  const results::CsvHeader all(case_dir + "/comparison.csv", current);
  const std::string padding(all.size() - columns.size(), ',');
  struct Errors {
    std::string model;
    double median, mean, p90;
  };
  std::vector<Errors> found;  // added to `errors` only once the whole file has parsed
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = results::split_csv_line(line);
    if (f.size() != columns.size()) return false;
    try {
      found.push_back({f[columns.column("network_model")], std::stod(f[columns.column("error_pct")]),
                       std::stod(f[columns.column("mean_error_pct")]),
                       std::stod(f[columns.column("p90_error_pct")])});
    } catch (const std::exception&) {
      return false;
    }
    rows += prefix + line + padding + "\n";
  }
  if (found.empty()) return false;
  csv += rows;
  for (const auto& e : found) {
    errors.median[e.model].push_back(e.median);
    errors.mean[e.model].push_back(e.mean);
    errors.p90[e.model].push_back(e.p90);
  }
  return true;
}

int run_validate(const ValidateOptions& o) {
  const auto files = suite(o);  // bad --scenarios is refused before anything is created
  if (o.plan) {
    PlanValidationOptions p = o.planning;
    p.cases = files;
    p.out = o.out;
    p.seeds = o.ensemble.seeds;
    return run_plan_validation(p);
  }
  fs::create_directories(o.out);
  std::string csv;
  SuiteErrors errors;
  nlohmann::ordered_json cases = nlohmann::ordered_json::array();
  for (const auto& file : files) {
    const auto [variant, network] = suite_case_labels(file.stem().string());
    // Five measured runs where the predictions disagree by 15 % or more (a case whose outcome
    // depends on chance: one run of it judges little); three from 16 ranks, whose one run depends
    // on how the host scheduled 8 ranks per core: scenarios/validation/README.md.
    CompareOptions c = o.ensemble;
    c.scenario = file.string();
    // A file named "...yaml" has the stem "..": its folder must still be under --out.
    c.out = path_under(o.out, {file.stem().string()}, "--scenarios file").string();
    c.steps = o.steps;
    c.quiet = true;
    c.host_cores = o.host_cores;
    c.reuse_runs = o.reuse || o.reuse_only;
    c.emulate_runs = !o.reuse_only;
    const bool reusable = whole_run(c.out + "/emu");
    if ((o.reuse || o.reuse_only) && reusable) c.measured = c.out + "/emu";
    else if (o.reuse_only) {
      if (keep_committed_comparison(c.out, variant + "," + network + ",", csv, errors)) {
        fmt::print("== {} (no run data here: its committed comparison.csv kept)\n", file.stem().string());
        cases.push_back({{"scenario", file.stem().string()}, {"variant", variant}, {"network", network},
                         {"dir", c.out}, {"kept", true}});
      } else {
        // Said, not skipped silently: the summary then covers fewer cases than the suite has.
        fmt::print("== {} (left out of the summary: no run data and no comparison.csv with "
                   "compare's columns in {})\n", file.stem().string(), c.out);
        cases.push_back({{"scenario", file.stem().string()}, {"variant", variant}, {"network", network},
                         {"left_out", "no run data and no comparison.csv with compare's columns"}});
      }
      continue;
    }
    else remove_measured_runs(c.out);
    fmt::print("== {} ({}on {})\n", file.stem().string(), c.measured.empty() ? "emulating, " : "", network);
    std::fflush(stdout);
    std::string dir;
    try {
      if (c.measured.empty() && o.case_profiles) {
        // Before the run, in its own process: a plan's profile never sees the judged run. As many
        // workers at once as the run puts ranks on this host: an op's CPU time among 16 processes
        // on 2 cores (switches, cold caches) is not its time alone (docs/validation.md).
        const int concurrent = o.case_profile_concurrent > 0 ? o.case_profile_concurrent : case_ranks(file);
        fmt::print("   profiling first: geotrain profile --min-seconds {:g} --concurrent {} -> {}/{}\n",
                   o.case_profile_seconds, concurrent, c.out, kCaseProfileFile);
        std::fflush(stdout);
        make_case_profile(file, c.out, o.planning, o.case_profile_seconds, concurrent);
      }
      const auto r = run_compare(c, dir);
      fmt::print("{}", compare::comparison_table(r));
      csv += compare::comparison_csv_rows(r, variant + "," + network + ",");
      for (const auto& m : r.models) {
        errors.median[m.network_model].push_back(m.error_pct);
        errors.mean[m.network_model].push_back(m.mean_error_pct);
        errors.p90[m.network_model].push_back(m.p90_error_pct);
      }
      cases.push_back({{"scenario", r.scenario}, {"variant", variant}, {"network", network}, {"dir", dir}});
    } catch (const Error& e) {
      fmt::print("   FAILED: {}\n", e.what());  // one failed case does not stop the suite
      cases.push_back({{"scenario", file.stem().string()}, {"variant", variant}, {"network", network}, {"failed", e.what()}});
    }
    std::fflush(stdout);
  }
  write_summary(o, csv, errors, cases);
  if (o.plots) run_child(self_executable(), {"plot", o.out});
  return 0;
}

}  // namespace

void add_validate_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("validate", "run the validation suite (compare on every scenarios/validation/*.yaml)");
  auto o = std::make_shared<ValidateOptions>();
  cmd->add_option("--scenarios", o->scenarios, "folder of suite scenarios");
  cmd->add_option("--out", o->out, "results folder (default results/validation)");
  cmd->add_option("--only", o->only, "only scenarios whose file name contains this");
  cmd->add_option("--steps", o->steps, "emulated iterations per case (default: training.steps)")
      ->check(CLI::Range(1, 100'000'000));
  add_ensemble_options(cmd, o->ensemble);
  cmd->add_flag("--reuse", o->reuse, "reuse emulations already in the results folder");
  cmd->add_flag("--reuse-only", o->reuse_only,
                "compare only the cases whose emulation is already there; the others keep their committed comparison.csv");
  cmd->add_flag("--no-plots{false}", o->plots, "skip the plots");
  cmd->add_flag("--no-case-profiles{false}", o->case_profiles,
                "do not profile a case before emulating it (validate --plan then predicts it from the shared profiles)");
  cmd->add_option("--case-profile-seconds", o->case_profile_seconds,
                  "geotrain profile --min-seconds for the profile made before each case's run (default 10)")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_option("--case-profile-concurrent", o->case_profile_concurrent,
                  "geotrain profile --concurrent for that profile (default: the case's ranks, all on this host)")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--host-cores", o->host_cores, "predict with the emulation host's shared cores (compare --host-cores)");
  cmd->add_flag("--plan", o->plan,
                "judge predictions made beforehand: each case from a profile of geotrain profile (never the judged "
                "run's), against its committed measurement; writes <out>/plan/");
  cmd->add_option("--profiles", o->planning.profiles, "--plan: folder of planned profiles, reused by key (default <out>/plan/profiles)");
  cmd->add_option("--profile-repeat", o->planning.repeat, "--plan: geotrain profile --repeat (default 20)")
      ->check(CLI::Range(1, 10000));
  cmd->add_option("--profile-warmup", o->planning.warmup, "--plan: geotrain profile --warmup (default 3)")
      ->check(CLI::Range(0, 10000));
  cmd->add_option("--profile-min-seconds", o->planning.min_seconds,
                  "--plan: geotrain profile --min-seconds (default 30: samples over half a minute of the machine)")
      ->check(CLI::Range(0.0, 86400.0));
  cmd->add_option("--background-cores", o->planning.background_cores,
                  "--plan: cores taken by the emulator's own work (simulation.host_background_cores; default 0)")
      ->check(CLI::Range(0.0, 64.0));
  cmd->add_option("--network-model", o->planning.network_model, "--plan: flow, tcp or both (default both)")
      ->check(CLI::IsMember({"flow", "tcp", "both"}));
  cmd->callback([&action, o] { action = [o] { return run_validate(*o); }; });
}

}  // namespace geotrain::cli
