// bench_schedule: speed and quality of `geotrain schedule` on DT-FM's five 64-device cases and
// on the 1,024- and 4,096-device bench scenarios (16 stages x 64 / 256 replicas, eight cities).
// For each case: gcma and baseline with the original's full budget (population 100 + 4,900
// trials) and random with as many candidates; wall and CPU time of each run, best total cost.
// Usage: bench_schedule [--skip-large] [--trials N] [--csv out.csv]
#include <fmt/format.h>

#include <sys/resource.h>

#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scheduler/scheduler.hpp"

namespace {

using namespace geotrain;

struct Row {
  std::string scenario, scheduler;
  int devices, candidates;
  double wall_s, cpu_s, best_cost_s, mean_cost_s;
  double peak_rss_mb;  // the process's peak so far: runs go from small to large, so it is this run's
};

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0 / 1e6;  // Linux reports KiB
}

Row measure(const Scenario& s, const CostModel& m, const std::string& name, int trials) {
  SearchOptions o;
  o.population = s.scheduler.population;
  o.trials = trials;
  o.seed = s.seed;
  const double cpu0 = cpu_seconds();
  const SearchResult r = run_scheduler(m, name, o);
  const double cpu = cpu_seconds() - cpu0;
  double sum = 0;
  for (double c : r.candidate_cost_s) sum += c;
  return {s.name, name, m.devices(), static_cast<int>(r.candidate_cost_s.size()), r.elapsed_s, cpu,
          r.cost.total_cost_s, sum / static_cast<double>(r.candidate_cost_s.size()), peak_rss_mb()};
}

}  // namespace

int main(int argc, char** argv) {
  bool skip_large = false;
  int trials = 4900;
  std::string csv;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--skip-large") skip_large = true;
    else if (a == "--trials" && i + 1 < argc) trials = std::stoi(argv[++i]);
    else if (a == "--csv" && i + 1 < argc) csv = argv[++i];
    else {
      fmt::print(stderr, "usage: bench_schedule [--skip-large] [--trials N] [--csv out.csv]\n");
      return 2;
    }
  }
  const std::string src = GEOTRAIN_SOURCE_DIR;
  std::vector<std::string> files;
  for (int c = 1; c <= 5; ++c) files.push_back(fmt::format("{}/scenarios/paper/dtfm_case{}.yaml", src, c));
  if (!skip_large) {
    files.push_back(src + "/scenarios/bench/schedule_1024.yaml");
    files.push_back(src + "/scenarios/bench/schedule_4096.yaml");
  }
  std::vector<Row> rows;
  fmt::print("{:<16} {:<9} {:>7} {:>10} {:>9} {:>9} {:>12} {:>12} {:>8}\n", "scenario", "scheduler", "devices",
             "candidates", "wall_s", "cpu_s", "best_cost_s", "mean_cost_s", "peak_MB");
  for (const auto& f : files) {
    const Scenario s = load_scenario(f);
    const CostModel m = make_cost_model(s);
    for (const std::string name : {"gcma", "baseline", "random"}) {
      if (m.devices() > 64 && name == "baseline") continue;  // gcma is the scale target
      rows.push_back(measure(s, m, name, trials));
      const Row& r = rows.back();
      fmt::print("{:<16} {:<9} {:>7} {:>10} {:>9.3f} {:>9.3f} {:>12.4f} {:>12.4f} {:>8.0f}\n", r.scenario,
                 r.scheduler, r.devices, r.candidates, r.wall_s, r.cpu_s, r.best_cost_s, r.mean_cost_s,
                 r.peak_rss_mb);
      std::fflush(stdout);
    }
  }
  if (!csv.empty()) {
    std::ofstream out(csv);
    out << "scenario,scheduler,devices,candidates,wall_s,cpu_s,best_cost_s,mean_cost_s,peak_rss_mb\n";
    for (const Row& r : rows)
      out << fmt::format("{},{},{},{},{:.4f},{:.4f},{},{},{:.0f}\n", r.scenario, r.scheduler, r.devices,
                         r.candidates, r.wall_s, r.cpu_s, r.best_cost_s, r.mean_cost_s, r.peak_rss_mb);
  }
  return 0;
}
