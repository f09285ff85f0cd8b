#include "sim/compare/comparison.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_files.hpp"
#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace comparison_test {

using namespace geotrain;
using namespace geotrain::compare;

namespace {

// Two ranks; iteration k of rank 0 ends at 5, 7, 10, 12.5, rank 1 a little earlier: completion
// intervals 5, 2, 3, 2.5 (rank 0 is always the last to finish).
std::string rows() {
  return test::ops_header() + test::op_line(0, 0, 0, "compute", false, 0, 5) +
         test::op_line(0, 1, 0, "compute", false, 5, 7) + test::op_line(0, 2, 0, "compute", false, 7, 10) +
         test::op_line(0, 3, 0, "compute", false, 10, 12.5) + test::op_line(1, 0, 0, "compute", false, 0, 4) +
         test::op_line(1, 1, 0, "compute", false, 4, 6) + test::op_line(1, 2, 0, "compute", false, 6, 9) +
         test::op_line(1, 3, 0, "compute", false, 9, 12);
}

// The simulator's run: iterations of 3 and 2.5 s after a first one of 5 s.
std::string predicted_rows() {
  return test::ops_header() + test::op_line(0, 0, 0, "compute", false, 0, 5) +
         test::op_line(0, 1, 0, "compute", false, 5, 8) + test::op_line(0, 2, 0, "compute", false, 8, 10.5);
}

// A fresh folder with a measured run in emu/ and a predicted one in sim/ (summary.json, ops.csv).
std::string run_pair(const std::string& name, const std::string& emu_summary, const std::string& emu_ops,
                     const std::string& sim_summary, const std::string& sim_ops) {
  const auto dir = test::temp_dir(name);
  std::filesystem::create_directories(dir + "/emu");
  std::filesystem::create_directories(dir + "/sim");
  test::write_file(dir + "/emu/summary.json", emu_summary);
  test::write_file(dir + "/emu/ops.csv", emu_ops);
  test::write_file(dir + "/sim/summary.json", sim_summary);
  test::write_file(dir + "/sim/ops.csv", sim_ops);
  return dir;
}

}  // namespace

TEST_CASE("compare_runs: median completion interval after warm-up on both sides, signed error, files", "[compare]") {
  const auto dir = run_pair("comparison",
                            R"({"format": "geotrain-emu-summary", "scenario": "s", "strategy": "ddp-allreduce",
                                "world_size": 2, "warmup_iterations": 1, "iteration_time_s": 2.5,
                                "iterations": 4})",
                            rows(), R"({"scenario": "s", "iteration_time_s": 3.5, "iterations": 3})",
                            predicted_rows());
  const auto m = read_measured_run(dir + "/emu");
  CHECK(m.iterations == std::vector<int>{1, 2, 3});
  CHECK(m.iteration_times_s == std::vector<double>{2, 3, 2.5});
  const auto p = read_predicted_run(dir + "/sim", m.warmup);
  CHECK(p.iterations == std::vector<int>{1, 2});
  CHECK(p.iteration_time_s == Approx(2.75));  // median of 3 and 2.5: the sim's first iteration is left out too
  const auto c = compare_runs(m, {p}, {"flow"});
  CHECK(c.measured_s == Approx(2.5));
  CHECK(c.measured_min_s == Approx(2));
  CHECK(c.measured_max_s == Approx(3));
  REQUIRE(c.models.size() == 1);
  CHECK(c.models[0].error_pct == Approx(10));
  // Means of the same intervals: measured (2 + 3 + 2.5) / 3 = 2.5, predicted (3 + 2.5) / 2 = 2.75.
  CHECK(c.measured_mean_s == Approx(2.5));
  CHECK(c.models[0].predicted_mean_s == Approx(2.75));
  CHECK(c.models[0].mean_error_pct == Approx(10));
  CHECK(c.models[0].predicted_p10_s == Approx(2.55));
  CHECK(c.models[0].predicted_p90_s == Approx(2.95));
  // Per rank and compared iteration: rank 0 computes 2, 3, 2.5 s, rank 1 2, 3, 3 s.
  CHECK(c.measured_split.compute_s == Approx(15.5 / 6));
  CHECK(c.measured_split.other_s == Approx(2.5 - 15.5 / 6));
  CHECK(c.models[0].split.compute_s == Approx(2.75));
  write_comparison(c, dir);
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/comparison.json"));
  CHECK(j["predicted"][0]["error_pct"].get<double>() == Approx(10));
  CHECK(j["predicted"][0]["ops_matched"].get<int>() == 1);
  CHECK(j["predicted"][0]["mean_error_pct"].get<double>() == Approx(10));
  CHECK(j["measured"]["mean_s"].get<double>() == Approx(2.5));
  CHECK(j["predicted"][0]["p10_s"].get<double>() == Approx(2.55));
  CHECK(j["predicted"][0]["p90_s"].get<double>() == Approx(2.95));
  CHECK(j["predicted"][0]["p90_error_pct"].get<double>() == Approx(100 * 0.05 / 2.9));
  std::ifstream csv(dir + "/comparison.csv");
  std::string header, row, none;
  std::getline(csv, header);
  std::getline(csv, row);
  CHECK(header == comparison_csv_header());
  CHECK(row.rfind("s,ddp-allreduce,2,flow,2.500000,", 0) == 0);
  // ... mean columns, then the spread: measured {2, 2.5, 3} has p10 2.1 and p90 2.9 (position
  // 0.2 and 1.8 between the order statistics), predicted {2.5, 3} 2.55 and 2.95; p90 error
  // 100 x 0.05 / 2.9; then one run on each side, no spread.
  const std::string tail = ",2.500000,2.750000,10.000,2.100000,2.550000,2.900000,2.950000,1.724,1,0.000,1,0.000";
  CHECK(row.substr(row.size() - tail.size()) == tail);
  CHECK_FALSE(std::getline(csv, none));
  CHECK(comparison_table(c).find("+10.0%") != std::string::npos);
  CHECK(comparison_table(c).find("mean of the same intervals: measured 2.5000 s, flow 2.7500 s (+10.0%)") !=
        std::string::npos);
  CHECK(comparison_table(c).find("spread p10 .. p90: measured 2.1000 .. 2.9000 s, flow 2.5500 .. 2.9500 s (p90 +1.7%)") !=
        std::string::npos);
}

TEST_CASE("read_measured_run refuses a simulator run", "[compare]") {
  const auto dir = test::temp_dir("not_emu");
  test::write_file(dir + "/summary.json", R"({"scenario": "s", "iteration_time_s": 1})");
  CHECK_THROWS_WITH(read_measured_run(dir), Catch::Contains("expected a measured run"));
  test::write_file(dir + "/summary.json", R"({"format": "geotrain-sim-summary", "scenario": "s"})");
  CHECK_THROWS_WITH(read_measured_run(dir), Catch::Contains("format 'geotrain-sim-summary'"));
}

TEST_CASE("compare_runs: an asynchronous run's drain is left out on both sides", "[compare]") {
  // Measured: rank 0 is done at 6 s (1 s iterations); rank 1 takes 2.5 s per iteration while
  // rank 0 runs, then 0.5 s alone: intervals 2.5 2.5 2.5 | 0.5 0.5 0.5, the drain from 6 s.
  // Predicted: the same with 2.4 s, and its drain begins one iteration later.
  const double measured_slow[] = {2.5, 5, 7.5, 8, 8.5, 9}, predicted_slow[] = {2.4, 4.8, 7.2, 9.6, 10.1, 10.6};
  std::string measured = test::ops_header(), predicted = test::ops_header();
  for (int k = 0; k < 6; ++k) {
    measured += test::op_line(0, k, 0, "compute", false, k, k + 1) +
                test::op_line(1, k, 0, "compute", false, k ? measured_slow[k - 1] : 0, measured_slow[k]);
    predicted += test::op_line(0, k, 0, "compute", false, 1.5 * k, 1.5 * k + 1.5) +
                 test::op_line(1, k, 0, "compute", false, k ? predicted_slow[k - 1] : 0, predicted_slow[k]);
  }
  const auto dir = run_pair("comparison_drain",
                            R"({"format": "geotrain-emu-summary", "scenario": "s", "strategy": "sdpipe-preduce",
                                "world_size": 2, "warmup_iterations": 1, "iterations": 6})",
                            measured, R"({"scenario": "s", "iterations": 6})", predicted);
  const auto m = read_measured_run(dir + "/emu");
  CHECK(m.steady_iterations == 3);
  CHECK(m.total_iterations == 6);  // compare simulates all six, so both runs end alike
  CHECK(m.iterations == std::vector<int>{1, 2});
  const auto p = read_predicted_run(dir + "/sim", m.warmup);
  CHECK(p.steady_iterations == 4);  // the drain at 9 s: iteration 3 started at 7.2 s
  CHECK(p.iterations == std::vector<int>{1, 2, 3});
  const auto c = compare_runs(m, {p}, {"flow"});
  CHECK(c.measured_s == Approx(2.5));  // all six: 1.5
  CHECK(c.measured_drain_iterations == 3);
  REQUIRE(c.models.size() == 1);
  CHECK(c.models[0].predicted_s == Approx(2.4));
  CHECK(c.models[0].error_pct == Approx(-4));
  CHECK(c.models[0].drain_iterations == 2);
  CHECK(comparison_table(c).find("drain left out") != std::string::npos);
}

}  // namespace comparison_test
