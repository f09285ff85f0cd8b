#include "sim/compare/comparison.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_files.hpp"
#include "sim/common/error.hpp"

using namespace geotrain;
using namespace geotrain::compare;

namespace {

std::string rows() {
  return test::ops_header() + test::op_line(0, 0, 0, "compute", false, 0, 1) +
         test::op_line(0, 1, 0, "compute", false, 1, 2) + test::op_line(0, 2, 0, "compute", false, 2, 3) +
         test::op_line(0, 3, 0, "compute", false, 3, 4);
}

}  // namespace

TEST_CASE("compare_runs: median of measured iterations after warm-up, signed error, files", "[compare]") {
  const auto dir = test::temp_dir("comparison");
  std::filesystem::create_directories(dir + "/emu");
  std::filesystem::create_directories(dir + "/sim");
  test::write_file(dir + "/emu/summary.json",
                   R"({"format": "geotrain-emu-summary", "scenario": "s", "strategy": "ddp-allreduce",
                       "world_size": 1, "warmup_iterations": 1, "iteration_time_s": 2.5,
                       "iteration_times_s": [5, 2, 3, 2.5]})");
  test::write_file(dir + "/emu/ops.csv", rows());
  test::write_file(dir + "/sim/summary.json", R"({"scenario": "s", "iteration_time_s": 2.75, "iterations": 2})");
  test::write_file(dir + "/sim/ops.csv", rows());
  const auto m = read_measured_run(dir + "/emu");
  CHECK(m.iterations == std::vector<int>{1, 2, 3});
  const auto c = compare_runs(m, {read_predicted_run(dir + "/sim")}, {"flow"});
  CHECK(c.measured_s == Approx(2.5));
  CHECK(c.measured_min_s == Approx(2));
  CHECK(c.measured_max_s == Approx(3));
  REQUIRE(c.models.size() == 1);
  CHECK(c.models[0].error_pct == Approx(10));
  CHECK(c.measured_split.compute_s == Approx(1));
  CHECK(c.measured_split.other_s == Approx(1.5));
  CHECK(c.models[0].split.compute_s == Approx(1));
  write_comparison(c, dir);
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/comparison.json"));
  CHECK(j["predicted"][0]["error_pct"].get<double>() == Approx(10));
  CHECK(j["predicted"][0]["ops_matched"].get<int>() == 1);
  std::ifstream csv(dir + "/comparison.csv");
  std::string header, row, none;
  std::getline(csv, header);
  std::getline(csv, row);
  CHECK(header == comparison_csv_header());
  CHECK(row.rfind("s,ddp-allreduce,1,flow,2.500000,", 0) == 0);
  CHECK_FALSE(std::getline(csv, none));
  CHECK(comparison_table(c).find("+10.0%") != std::string::npos);
}

TEST_CASE("read_measured_run refuses a simulator run", "[compare]") {
  const auto dir = test::temp_dir("not_emu");
  test::write_file(dir + "/summary.json", R"({"scenario": "s", "iteration_time_s": 1})");
  CHECK_THROWS_WITH(read_measured_run(dir), Catch::Contains("expected a geotrain emulate run"));
}
