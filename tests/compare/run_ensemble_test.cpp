// Ensembles of runs (sim/compare/run_ensemble.hpp): each side judged by its median run, every
// run's median recorded, the spread of the runs' medians. Run folders are written by hand so
// every figure is known in closed form.
#include "sim/compare/run_ensemble.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_files.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace run_ensemble_test {

using namespace geotrain;
using namespace geotrain::compare;

namespace {

// One rank whose iteration k takes intervals[k] (a compute op back to back with the previous).
std::string ops_of(const std::vector<double>& intervals) {
  std::string rows = test::ops_header();
  double t = 0;
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    rows += test::op_line(0, static_cast<int>(k), 0, "compute", false, t, t + intervals[k]);
    t += intervals[k];
  }
  return rows;
}

// A measured run (warm-up 1: the first interval is not compared) in `dir`.
RunFiles measured(const std::string& dir, const std::vector<double>& intervals) {
  std::filesystem::create_directories(dir);
  test::write_file(dir + "/summary.json",
                   nlohmann::json{{"format", "geotrain-emu-summary"}, {"scenario", "s"}, {"strategy", "sdpipe"},
                                  {"world_size", 1}, {"warmup_iterations", 1},
                                  {"iterations", intervals.size()}, {"iteration_time_s", 0}}.dump());
  test::write_file(dir + "/ops.csv", ops_of(intervals));
  return read_measured_run(dir);
}

RunFiles predicted(const std::string& dir, const std::vector<double>& intervals) {
  std::filesystem::create_directories(dir);
  test::write_file(dir + "/summary.json",
                   nlohmann::json{{"scenario", "s"}, {"iterations", intervals.size()}}.dump());
  test::write_file(dir + "/ops.csv", ops_of(intervals));
  return read_predicted_run(dir, 1);
}

}  // namespace

TEST_CASE("median_run_index: the run whose median is the median of the runs', lower middle of an even count",
          "[compare]") {
  const auto dir = test::temp_dir("ensemble_index");
  // Medians (after the warm-up interval 9): 1.5, 1.8, 1.53, 1.84, 1.82.
  std::vector<RunFiles> runs{measured(dir + "/a", {9, 1.5, 1.5, 1.5}), measured(dir + "/b", {9, 1.8, 1.8, 1.8}),
                             measured(dir + "/c", {9, 1.53, 1.53, 1.53}), measured(dir + "/d", {9, 1.84, 1.7, 1.9}),
                             measured(dir + "/e", {9, 1.82, 1.82, 1.82})};
  CHECK(median_run_index(runs) == 1);                  // 1.8: two below (1.5, 1.53), two above
  CHECK(run_spread_pct(runs) == Approx(100 * (1.84 - 1.5) / 1.8));
  runs.pop_back();                                     // 1.5, 1.53, 1.8, 1.84: the lower middle, 1.53
  CHECK(median_run_index(runs) == 2);
  CHECK(run_spread_pct({runs[0]}) == 0);               // one run: no spread
  // Equal medians keep the order the runs were made in.
  const std::vector<RunFiles> equal{measured(dir + "/f", {9, 2, 2}), measured(dir + "/g", {9, 2, 2}),
                                    measured(dir + "/h", {9, 2, 2})};
  CHECK(median_run_index(equal) == 1);
}

TEST_CASE("compare_ensembles: every figure from each side's median run, every run's median recorded",
          "[compare]") {
  const auto dir = test::temp_dir("ensemble_compare");
  // Bistable: two measured runs in the fast cycle (1.5 s), three in the slow one (1.8 s).
  RunEnsemble m;
  m.runs = {measured(dir + "/emu", {9, 1.5, 1.6, 1.4}), measured(dir + "/emu_run2", {9, 1.8, 1.9, 1.7}),
            measured(dir + "/emu_run3", {9, 1.5, 1.5, 1.5}), measured(dir + "/emu_run4", {9, 1.8, 1.8, 1.8}),
            measured(dir + "/emu_run5", {9, 1.85, 1.85, 1.85})};
  m.seeds = {0, 0, 0, 0, 0};
  // Three predictions, seeds 3, 4, 5: medians 1.9, 1.6, 1.84.
  RunEnsemble p;
  p.runs = {predicted(dir + "/sim_flow", {9, 1.9, 1.9}), predicted(dir + "/ens/seed4", {9, 1.6, 1.6}),
            predicted(dir + "/ens/seed5", {9, 1.84, 1.84})};
  p.seeds = {3, 4, 5};
  const auto c = compare_ensembles(m, {p}, {"flow"});
  // Measured medians 1.5, 1.8, 1.5, 1.8, 1.85: the median run is emu_run2 (1.8, first of the two).
  CHECK(c.measured_dir == dir + "/emu_run2");
  CHECK(c.measured_s == Approx(1.8));
  CHECK(c.measured_p90_s == Approx(1.88));             // emu_run2's own intervals 1.8, 1.9, 1.7
  REQUIRE(c.measured_runs.size() == 5);
  CHECK(c.measured_runs[0].median_s == Approx(1.5));
  CHECK(c.measured_runs[4].dir == dir + "/emu_run5");
  CHECK(c.measured_run_spread_pct == Approx(100 * (1.85 - 1.5) / 1.8));
  REQUIRE(c.models.size() == 1);
  const auto& flow = c.models[0];
  CHECK(flow.seed == 5);                               // 1.84, between 1.6 and 1.9
  CHECK(flow.dir == dir + "/ens/seed5");
  CHECK(flow.predicted_s == Approx(1.84));
  CHECK(flow.error_pct == Approx(100 * (1.84 - 1.8) / 1.8));
  REQUIRE(flow.runs.size() == 3);
  CHECK(flow.runs[1].seed == 4);
  CHECK(flow.runs[1].median_s == Approx(1.6));
  CHECK(flow.run_spread_pct == Approx(100 * (1.9 - 1.6) / 1.84));
  // The files carry the ensemble: comparison.json each run, comparison.csv the counts and spreads.
  write_comparison(c, dir);
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/comparison.json"));
  CHECK(j["measured"]["runs"].size() == 5);
  CHECK(j["predicted"][0]["variance_seed"] == 5);
  CHECK(j["predicted"][0]["runs"][2]["variance_seed"] == 5);
  std::ifstream csv(dir + "/comparison.csv");
  std::string header, row;
  std::getline(csv, header);
  std::getline(csv, row);
  CHECK_THAT(header, Catch::EndsWith(",measured_runs,measured_run_spread_pct,predicted_runs,predicted_run_spread_pct"));
  CHECK_THAT(row, Catch::EndsWith(",5,19.444,3,16.304"));
  CHECK_THAT(comparison_table(c), Catch::Contains("measured 5 (spread 19.4%), flow 3 seeds (spread 16.3%, median run: seed 5)"));
}

}  // namespace run_ensemble_test
