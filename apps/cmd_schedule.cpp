// geotrain schedule <scenario> [--scheduler gcma|baseline|random] [--trials N] [--population P]
//                   [--seed S] [--threads T] [--out assignment.json] [--evaluate assignment.json]
// DT-FM's heterogeneity-aware assignment of pipeline stages and data-parallel replicas.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "apps/commands.hpp"
#include "sim/common/error.hpp"
#include "sim/common/safe_path.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scheduler/scheduler.hpp"

namespace geotrain::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Options {
  std::string file;
  std::string scheduler;
  int trials = -1, population = -1, threads = 1;
  std::uint64_t seed = 0;
  bool seed_given = false, quiet = false, random_start = false;
  std::string out, evaluate, results = "results";
  std::vector<std::string> sets;
};

// --evaluate: DT-FM's score of the file's groups; with "pipelines", also the placement as given.
int evaluate_file(const Scenario& s, const Options& o) {
  const CostModel model = make_cost_model(s);
  const Assignment a = read_assignment(o.evaluate, model.stages(), model.replicas(), model.devices());
  json doc = json::parse(std::ifstream(o.evaluate));
  Partition groups = doc["groups"].get<Partition>();
  const CostBreakdown c = model.evaluate(groups);
  json out{{"dp_cost_s", c.dp_cost_s}, {"pp_cost_s", c.pp_cost_s}, {"total_cost_s", c.total_cost_s},
           {"pipeline_path", c.path}};
  if (doc.contains("pipelines")) {
    const CostBreakdown f = model.evaluate_fixed(a);
    out["as_placed"] = {{"dp_cost_s", f.dp_cost_s}, {"pp_cost_s", f.pp_cost_s}, {"total_cost_s", f.total_cost_s}};
  }
  std::cout << out.dump(2) << "\n";
  return 0;
}

// results/<scenario>/schedule/<scheduler>-seed<S>[-n]: a run never overwrites another.
fs::path output_dir(const Scenario& s, const Options& o, const std::string& name, std::uint64_t seed) {
  const fs::path base = path_under(o.results, {s.name, "schedule"}, "name");
  const std::string stem = fmt::format("{}-seed{}", name, seed);
  fs::path dir = base / stem;
  for (int n = 2; fs::exists(dir); ++n) dir = base / fmt::format("{}-{}", stem, n);
  fs::create_directories(dir);
  return dir;
}

void write_convergence(const fs::path& path, const SearchResult& r, int population) {
  std::ofstream out(path);
  if (!out) throw Error(fmt::format("{}: cannot write", path.string()));
  out << "candidate,phase,cost_s,best_cost_s\n";
  for (std::size_t i = 0; i < r.candidate_cost_s.size(); ++i)
    out << fmt::format("{},{},{},{}\n", i, i < static_cast<std::size_t>(population) ? "initial" : "trial",
                       r.candidate_cost_s[i], r.best_cost_s[i]);
}

json summary_json(const Scenario& s, const CostModel& m, const SearchResult& r, const SearchOptions& so) {
  return json{{"scenario", s.name},
              {"scheduler", r.scheduler},
              {"seed", so.seed},
              {"population", so.population},
              {"trials", so.trials},
              {"candidates", r.candidate_cost_s.size()},
              {"structured_seeds", r.structured_seeds},
              {"stages", m.stages()},
              {"replicas", m.replicas()},
              {"gradient_bytes", m.gradient_bytes()},
              {"activation_bytes", m.activation_bytes()},
              {"dp_cost_s", r.cost.dp_cost_s},
              {"pp_cost_s", r.cost.pp_cost_s},
              {"total_cost_s", r.cost.total_cost_s},
              {"pipelines", r.assignment.device_of}};
}

void print_result(const Scenario& s, const SearchResult& r, const SearchOptions& so) {
  std::cout << fmt::format("{}: {} candidates (population {} + {} trials) in {:.3f} s\n", r.scheduler,
                           r.candidate_cost_s.size(), so.population, so.trials, r.elapsed_s);
  std::cout << fmt::format("total cost {:.4f} s = data parallel {:.4f} s + pipeline {:.4f} s\n",
                           r.cost.total_cost_s, r.cost.dp_cost_s, r.cost.pp_cost_s);
  const Topology& t = s.network;
  for (int rep = 0; rep < r.assignment.replicas; ++rep) {
    std::string line = fmt::format("pipeline {}: ", rep);
    for (int st = 0; st < r.assignment.stages; ++st)
      line += fmt::format("{}{}", st ? ", " : "", t.region_name(t.region_of(r.assignment.device(rep, st))));
    std::cout << line << "\n";
  }
}

int run_search(const Scenario& s, const Options& o) {
  const CostModel model = make_cost_model(s);
  SearchOptions so;
  so.population = o.population >= 0 ? o.population : s.scheduler.population;
  so.trials = o.trials >= 0 ? o.trials : s.scheduler.trials;
  so.seed = o.seed_given ? o.seed : s.seed;
  so.threads = o.threads;
  so.structured_seeds = !o.random_start;
  const std::string name = o.scheduler.empty() ? s.scheduler.name : o.scheduler;
  // One random candidate is a meaningful baseline (what a user gets without a scheduler); the
  // evolutionary searches cross two parents, so they need at least two.
  if (name != "random" && so.population < 2)
    throw InputError(fmt::format("--population {}: {} needs at least 2 (it crosses two parents; "
                                 "only --scheduler random takes 1)",
                                 so.population, name));
  auto last = std::chrono::steady_clock::now();
  if (!o.quiet)
    so.progress = [&last](int done, int total, double best) {
      const auto now = std::chrono::steady_clock::now();
      if (done < total && now - last < std::chrono::seconds(2)) return;
      last = now;
      std::fprintf(stderr, "schedule: %d/%d candidates, best total cost %.4f s\n", done, total, best);
    };
  const SearchResult r = run_scheduler(model, name, so);
  print_result(s, r, so);
  fs::path assignment = o.out;
  fs::path dir = o.out.empty() ? output_dir(s, o, name, so.seed) : fs::absolute(o.out).parent_path();
  if (assignment.empty()) assignment = dir / "assignment.json";
  const std::string stem = o.out.empty() ? "" : assignment.stem().string() + ".";
  write_assignment(assignment.string(), r.assignment);
  write_convergence(dir / (stem + "convergence.csv"), r, so.population);
  std::ofstream(dir / (stem + "summary.json")) << summary_json(s, model, r, so).dump(2) << "\n";
  std::cout << fmt::format("wrote {} (+ {}convergence.csv, {}summary.json)\n", assignment.string(), stem, stem);
  return 0;
}

}  // namespace

void add_schedule_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("schedule", "DT-FM's assignment of pipeline stages and replicas to devices");
  auto o = std::make_shared<Options>();
  cmd->add_option("scenario", o->file, "scenario YAML file")->required();
  cmd->add_option("--scheduler", o->scheduler, "gcma, baseline or random (default: the scenario's)");
  cmd->add_option("--trials", o->trials, "offspring after the initial population")
      ->check(CLI::Range(0, 100'000'000));  // the ranges of scheduler.trials / .population
  cmd->add_option("--population", o->population, "initial random candidates (gcma/baseline: >= 2)")
      ->check(CLI::Range(1, 1'000'000));
  auto* seed = cmd->add_option("--seed", o->seed, "random seed (default: the scenario's)")
                   ->check(CLI::Range(std::uint64_t{0}, std::uint64_t{INT64_MAX}));
  cmd->add_option("--threads", o->threads, "evaluation threads (results do not depend on it)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--out", o->out, "assignment file to write (default: results/<scenario>/schedule/<run>/)");
  cmd->add_option("--results", o->results, "results folder");
  cmd->add_option("--evaluate", o->evaluate, "print the costs of this assignment file as JSON and exit");
  cmd->add_flag("--quiet", o->quiet, "no progress lines");
  cmd->add_flag("--random-start", o->random_start,
                "gcma: only random initial candidates, as the original (no structured seeds)");
  cmd->add_option("--set", o->sets, "override a scenario key: key.path=value (repeatable)");
  cmd->callback([&action, o, seed] {
    o->seed_given = seed->count() > 0;
    action = [o] {
      const Scenario s = load_scenario(o->file, o->sets);
      return o->evaluate.empty() ? run_search(s, *o) : evaluate_file(s, *o);
    };
  });
}

}  // namespace geotrain::cli
