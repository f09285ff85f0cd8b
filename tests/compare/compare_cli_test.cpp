// geotrain compare / plot through the binary: input errors, and one real comparison as root.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <tuple>
#include <utility>

#include "run_files.hpp"
#include "sim/results/csv_line.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compare_cli_test {

using namespace geotrain;

namespace {

bool have_root() { return geotrain::test::have_root("compare's emulation tests"); }

}  // namespace

TEST_CASE("compare with a --measured folder that is not a run is an input error", "[compare]") {
  const auto dir = test::temp_dir("cli_bad");
  std::string out;
  const int code = test::run_geotrain("compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --measured " +
                                          dir + " --out " + dir + "/cmp", out);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("summary.json: cannot open"));
}

TEST_CASE("plot refuses a folder that does not exist", "[compare]") {
  std::string out;
  CHECK(test::run_geotrain("plot /nonexistent/results", out) == 2);
  CHECK_THAT(out, Catch::Contains("not a directory"));
}

namespace {

// A measured run without an emulation: the simulator's own ops.csv of ddp_ring_2 (4 iterations)
// behind an emulator's summary.json, with `profile` as its compute profile (empty: none).
std::string fake_measured_run(const std::string& dir, const std::string& profile_json) {
  std::string out;
  REQUIRE(test::run_geotrain("simulate " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --iterations 4 "
                             "--no-trace --out " + dir + "/base", out) == 0);
  const std::string run = dir + "/measured";
  std::filesystem::create_directories(run);
  std::filesystem::copy_file(dir + "/base/ops.csv", run + "/ops.csv");
  test::write_file(run + "/summary.json",
                   R"({"format": "geotrain-emu-summary", "scenario": "ddp_ring_2", "strategy": "ddp-allreduce",
                       "world_size": 2, "warmup_iterations": 1, "iterations": 4, "iteration_time_s": 1})");
  if (!profile_json.empty()) test::write_file(run + "/compute_profile.json", profile_json);
  return run;
}

nlohmann::json compare_reusing(const std::string& dir, const std::string& measured, const std::string& extra) {
  std::string out;
  const int code = test::run_geotrain("compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --measured " +
                                          measured + " --network-model flow --out " + dir + " " + extra, out);
  INFO(out);
  REQUIRE(code == 0);
  return nlohmann::json::parse(std::ifstream(dir + "/comparison.json"));
}

// gpt-tiny's forward and backward over its 4 layers, measured with a wide spread.
const char* kSampledProfile = R"({"format": "geotrain-compute-profile", "version": 1, "ops": [
  {"kind": "forward", "layer_begin": 0, "layer_end": 4, "sequences": 4, "median_s": 0.1,
   "samples_s": [0.05, 0.1, 0.3]},
  {"kind": "backward", "layer_begin": 0, "layer_end": 4, "sequences": 4, "median_s": 0.2,
   "samples_s": [0.1, 0.2, 0.6]}]})";

// kSampledProfile with every time twice as long.
const char* kSampledProfileDoubled = R"({"format": "geotrain-compute-profile", "version": 1, "ops": [
  {"kind": "forward", "layer_begin": 0, "layer_end": 4, "sequences": 4, "median_s": 0.2,
   "samples_s": [0.1, 0.2, 0.6]},
  {"kind": "backward", "layer_begin": 0, "layer_end": 4, "sequences": 4, "median_s": 0.4,
   "samples_s": [0.2, 0.4, 1.2]}]})";

}  // namespace

TEST_CASE("compare draws compute times from a profile with samples and reports the predicted spread",
          "[compare]") {
  const auto dir = test::temp_dir("cli_sampled");
  const std::string measured = fake_measured_run(dir, kSampledProfile);
  const auto j = compare_reusing(dir + "/cmp", measured, "--sim-iterations 12");
  const auto manifest = nlohmann::json::parse(std::ifstream(dir + "/cmp/compare_manifest.json"));
  CHECK(manifest["compute_variance"] == "sampled");
  CHECK(manifest["simulate_commands"][0].dump().find("simulation.compute_variance=sampled") != std::string::npos);
  const auto& flow = j["predicted"][0];
  CHECK(flow["p10_s"].get<double>() < flow["p90_s"].get<double>());
  CHECK(flow["p10_s"].get<double>() <= flow["iteration_time_s"].get<double>());
  CHECK(flow["iteration_time_s"].get<double>() <= flow["p90_s"].get<double>());
  std::ifstream csv(dir + "/cmp/comparison.csv");
  std::string header;
  std::getline(csv, header);
  CHECK_THAT(header, Catch::Contains(",mean_error_pct,p10_measured_s,p10_predicted_s,p90_measured_s,"
                                     "p90_predicted_s,p90_error_pct,"));
  // The user's --set comes after compare's own: the ablation with medians has no compute spread.
  const auto median = compare_reusing(dir + "/cmp_median", measured,
                                      "--sim-iterations 12 --set simulation.compute_variance=median");
  CHECK(nlohmann::json::parse(std::ifstream(dir + "/cmp_median/compare_manifest.json"))["compute_variance"] ==
        "median");
  const auto& m = median["predicted"][0];
  CHECK(m["p90_s"].get<double>() == Approx(m["p10_s"].get<double>()).epsilon(1e-9));
}

// kSampledProfile with where each sample was measured: ddp_ring_2's op 0 (forward) and op 1
// (backward) of ranks 0 and 1 in steps 1-3 (rank 1 only in step 1).
const char* kSitedProfile = R"({"format": "geotrain-compute-profile", "version": 1, "ops": [
  {"kind": "forward", "layer_begin": 0, "layer_end": 4, "sequences": 4, "median_s": 0.1,
   "samples_s": [0.05, 0.1, 0.3, 0.2], "sample_sites": [[0, 1, 0], [0, 2, 0], [0, 3, 0], [1, 1, 0]]},
  {"kind": "backward", "layer_begin": 0, "layer_end": 4, "sequences": 4, "median_s": 0.2,
   "samples_s": [0.1, 0.2, 0.6, 0.4], "sample_sites": [[0, 1, 1], [0, 2, 1], [0, 3, 1], [1, 1, 1]]}]})";

TEST_CASE("compare draws whole measured steps when the profile has sample sites, and the user may pick "
          "another variance", "[compare]") {
  const auto dir = test::temp_dir("cli_steps");
  const std::string measured = fake_measured_run(dir, kSitedProfile);
  compare_reusing(dir + "/cmp", measured, "");
  const auto manifest = nlohmann::json::parse(std::ifstream(dir + "/cmp/compare_manifest.json"));
  CHECK(manifest["compute_variance"] == "steps");
  CHECK(manifest["simulate_commands"][0].dump().find("simulation.compute_variance=steps") != std::string::npos);
  // The user's choice reaches the simulations only (the scenario alone has no profile to draw from).
  compare_reusing(dir + "/cmp_sampled", measured, "--set simulation.compute_variance=sampled");
  CHECK(nlohmann::json::parse(std::ifstream(dir + "/cmp_sampled/compare_manifest.json"))["compute_variance"] ==
        "sampled");
  std::string out;
  CHECK(test::run_geotrain("compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --measured " + measured +
                               " --out " + dir + "/cmp_bad --set simulation.compute_variance=often", out) == 2);
  CHECK_THAT(out, Catch::Contains("--set simulation.compute_variance=often: unknown compute variance "
                                  "(expected median, sampled or steps)"));
  CHECK_FALSE(std::filesystem::exists(dir + "/cmp_bad"));
}

TEST_CASE("compare --seeds predicts with consecutive variance seeds and judges the median prediction",
          "[compare]") {
  const auto dir = test::temp_dir("cli_seeds");
  const std::string measured = fake_measured_run(dir, kSampledProfile);
  const auto j = compare_reusing(dir + "/cmp", measured, "--sim-iterations 12 --seeds 3");
  // ddp_ring_2's seed is 3: the first prediction where it always was, seeds 4 and 5 beside it.
  CHECK(std::filesystem::exists(dir + "/cmp/sim_flow/ops.csv"));
  CHECK(std::filesystem::exists(dir + "/cmp/ensemble/sim_flow_seed4/ops.csv"));
  CHECK(std::filesystem::exists(dir + "/cmp/ensemble/sim_flow_seed5/ops.csv"));
  CHECK_FALSE(std::filesystem::exists(dir + "/cmp/ensemble/sim_flow_seed4/trace.json"));
  const auto manifest = nlohmann::json::parse(std::ifstream(dir + "/cmp/compare_manifest.json"));
  CHECK(manifest["seeds"] == 3);
  CHECK(manifest["simulate_commands"][2].dump().find("simulation.variance_seed=5") != std::string::npos);
  const auto& flow = j["predicted"][0];
  REQUIRE(flow["runs"].size() == 3);
  std::vector<double> medians;
  for (const auto& r : flow["runs"]) medians.push_back(r["iteration_time_s"].get<double>());
  CHECK(medians[0] != medians[1]);  // the seeds draw different compute times
  auto sorted = medians;
  std::sort(sorted.begin(), sorted.end());
  CHECK(flow["iteration_time_s"].get<double>() == Approx(sorted[1]));
  const auto judged = flow["variance_seed"].get<int>();
  CHECK(medians[static_cast<std::size_t>(judged - 3)] == Approx(sorted[1]));
  CHECK(j["measured"]["runs"].size() == 1);
  // The same command again writes the same comparison, byte for byte.
  std::ifstream first(dir + "/cmp/comparison.csv");
  const std::string before((std::istreambuf_iterator<char>(first)), std::istreambuf_iterator<char>());
  compare_reusing(dir + "/cmp", measured, "--sim-iterations 12 --seeds 3");
  std::ifstream second(dir + "/cmp/comparison.csv");
  CHECK(before == std::string((std::istreambuf_iterator<char>(second)), std::istreambuf_iterator<char>()));
  // A re-comparison with one seed replaces the ensemble; medians need no ensemble at all.
  compare_reusing(dir + "/cmp", measured, "--sim-iterations 12 --seeds 1");
  CHECK_FALSE(std::filesystem::exists(dir + "/cmp/ensemble"));
  const auto median = compare_reusing(dir + "/cmp_median", measured,
                                      "--sim-iterations 12 --seeds 3 --set simulation.compute_variance=median");
  CHECK(median["predicted"][0]["runs"].size() == 1);
}

TEST_CASE("compare --runs judges the median of the measured runs, made only when the predictions spread enough",
          "[compare]") {
  const auto dir = test::temp_dir("cli_runs");
  const std::string measured = fake_measured_run(dir, kSampledProfile);
  // Extra runs already in the comparison folder: the same ops, `factor` times slower.
  const auto add_run = [&](const std::string& run, double factor) {
    std::filesystem::create_directories(run);
    std::filesystem::copy_file(measured + "/summary.json", run + "/summary.json");
    std::ifstream ops(measured + "/ops.csv");
    std::string line, slower;
    std::getline(ops, line);
    slower = line + "\n";
    const results::CsvHeader columns("ops.csv", line);
    while (std::getline(ops, line)) {
      auto f = results::split_csv_line(line);
      for (const char* c : {"start_s", "end_s"})
        f[columns.column(c)] = std::to_string(factor * std::stod(f[columns.column(c)]));
      for (std::size_t i = 0; i < f.size(); ++i) slower += (i ? "," : "") + f[i];
      slower += "\n";
    }
    test::write_file(run + "/ops.csv", slower);
  };
  add_run(dir + "/cmp/emu_run2", 1.1);
  const auto j = compare_reusing(dir + "/cmp", measured, "--sim-iterations 12 --seeds 3 --runs 2 --reuse-runs");
  REQUIRE(j["measured"]["runs"].size() == 2);
  const double first = j["measured"]["runs"][0]["iteration_time_s"].get<double>();
  CHECK(j["measured"]["runs"][1]["iteration_time_s"].get<double>() == Approx(1.1 * first).epsilon(1e-4));
  CHECK(j["measured"]["iteration_time_s"].get<double>() == Approx(first));  // lower middle of two
  CHECK(j["measured"]["run_spread_pct"].get<double>() == Approx(10).epsilon(1e-3));
  // Below the threshold no second run is taken (nor emulated: this test has no root).
  const auto settled = compare_reusing(dir + "/cmp", measured,
                                       "--sim-iterations 12 --seeds 3 --runs 2 --reuse-runs --runs-if-spread 1000");
  CHECK(settled["measured"]["runs"].size() == 1);
  // --min-runs takes them whatever the spread, in scenarios of at least --min-runs-world ranks
  // (ddp_ring_2 has 2).
  const auto always = compare_reusing(dir + "/cmp", measured,
                                      "--sim-iterations 12 --seeds 3 --runs 2 --reuse-runs --runs-if-spread 1000 "
                                      "--min-runs 2 --min-runs-world 2");
  CHECK(always["measured"]["runs"].size() == 2);
  const auto small = compare_reusing(dir + "/cmp", measured,
                                     "--sim-iterations 12 --seeds 3 --runs 2 --reuse-runs --runs-if-spread 1000 "
                                     "--min-runs 2 --min-runs-world 3");
  CHECK(small["measured"]["runs"].size() == 1);
  // --min-runs above --runs: the spread's runs never number fewer than the unconditional ones.
  const auto more = compare_reusing(dir + "/cmp", measured,
                                    "--sim-iterations 12 --seeds 3 --runs 1 --reuse-runs --min-runs 2 "
                                    "--min-runs-world 2");
  CHECK(more["measured"]["runs"].size() == 2);
  // With a third run, 20 % slower, the judged run is the second, and the predictions are made
  // from its compute profile (here: every op twice as long as the first run's).
  add_run(dir + "/cmp/emu_run3", 1.2);
  test::write_file(dir + "/cmp/emu_run2/compute_profile.json", kSampledProfileDoubled);
  const auto three = compare_reusing(dir + "/cmp", measured, "--sim-iterations 12 --seeds 3 --runs 3 --reuse-runs");
  REQUIRE(three["measured"]["runs"].size() == 3);
  CHECK(three["measured"]["iteration_time_s"].get<double>() == Approx(1.1 * first).epsilon(1e-4));
  const auto manifest = nlohmann::json::parse(std::ifstream(dir + "/cmp/compare_manifest.json"));
  CHECK(manifest["predicted_from_run"] == dir + "/cmp/emu_run2");
  CHECK(manifest["simulate_commands"][0].dump().find("emu_run2/compute_profile.json") != std::string::npos);
  CHECK(three["predicted"][0]["iteration_time_s"].get<double>() >
        1.5 * j["predicted"][0]["iteration_time_s"].get<double>());
}

TEST_CASE("compare --runs without root: one line, exit 2, nothing written", "[compare]") {
  if (!have_root()) return;  // needs root to become somebody else
  const auto dir = test::temp_dir("cli_runs_noroot");
  const std::string measured = fake_measured_run(dir, kSampledProfile);
  const auto r = test::sh("setpriv --reuid=65534 --regid=65534 --clear-groups " GEOTRAIN_BINARY
                          " compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --measured " + measured +
                          " --out " + dir + "/cmp --runs 2");
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1);
  CHECK_THAT(r.out, Catch::Contains("geotrain compare --runs 2: needs root"));
  CHECK_FALSE(std::filesystem::exists(dir + "/cmp"));
  // Runs asked for by --min-runs name that flag.
  const auto min = test::sh("setpriv --reuid=65534 --regid=65534 --clear-groups " GEOTRAIN_BINARY
                            " compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --measured " + measured +
                            " --out " + dir + "/cmp --min-runs 2 --min-runs-world 2");
  INFO(min.out);
  CHECK(min.status == 2);
  CHECK_THAT(min.out, Catch::Contains("geotrain compare --min-runs 2: needs root"));
  CHECK_FALSE(std::filesystem::exists(dir + "/cmp"));
  // Extra runs already there to reuse need no emulation, so no root either.
  std::filesystem::create_directories(dir + "/ready/emu_run2");
  for (const char* f : {"summary.json", "ops.csv"})
    std::filesystem::copy_file(measured + "/" + f, dir + "/ready/emu_run2/" + f);
  std::filesystem::permissions(dir + "/ready", std::filesystem::perms::all, std::filesystem::perm_options::add);
  const auto reused = test::sh("setpriv --reuid=65534 --regid=65534 --clear-groups " GEOTRAIN_BINARY
                               " compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --measured " + measured +
                               " --out " + dir + "/ready --runs 2 --reuse-runs --network-model flow --seeds 3");
  INFO(reused.out);
  CHECK(reused.status == 0);
}

TEST_CASE("compare keeps median compute times for a profile without samples", "[compare]") {
  const auto dir = test::temp_dir("cli_medians");
  const std::string measured = fake_measured_run(dir, R"({"format": "geotrain-compute-profile", "ops": [
    {"kind": "forward", "layer_begin": 0, "layer_end": 4, "sequences": 4, "median_s": 0.1}]})");
  compare_reusing(dir + "/cmp", measured, "");
  const auto manifest = nlohmann::json::parse(std::ifstream(dir + "/cmp/compare_manifest.json"));
  CHECK(manifest["compute_variance"] == "median");
  CHECK(manifest["simulate_commands"][0].dump().find("compute_variance") == std::string::npos);
}

TEST_CASE("compare: a real 2-worker emulation against both network models", "[compare][emu]") {
  if (!have_root()) return;
  const auto dir = test::temp_dir("cli_e2e");
  std::string out;
  const int code = test::run_geotrain("compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --steps 3 --out " +
                                          dir + "/cmp", out);
  INFO(out);
  REQUIRE(code == 0);
  CHECK_THAT(out, Catch::Contains("flow") && Catch::Contains("tcp"));
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/cmp/comparison.json"));
  CHECK(j["measured"]["iteration_time_s"].get<double>() > 0);
  REQUIRE(j["predicted"].size() == 2);
  for (const auto& m : j["predicted"]) {
    CHECK(std::isfinite(m["error_pct"].get<double>()));
    CHECK(m["ops_matched"].get<int>() == m["ops"].get<int>());  // the same Program on both sides
  }
  CHECK(std::filesystem::exists(dir + "/cmp/ops_flow.csv"));
}

TEST_CASE("compare: Gloo's own all-reduce is predicted from its segments and window",
          "[compare][emu][gloo]") {
  // The worker runs LibTorch's Gloo allreduce (algorithm: library); the simulator replays what
  // that Gloo does (sim/program/gloo_algorithms.hpp). Their time in the collective (moving data
  // plus waiting for peers) must agree: on a quiet host 1.147 s predicted vs 1.080 s measured
  // per rank and iteration (the iteration: +2.5%).
  if (!have_root()) return;
  const auto dir = test::temp_dir("cli_gloo");
  std::string out;
  const int code = test::run_geotrain("compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_gloo_4.yaml --steps 4 --out " +
                                          dir + "/cmp", out);
  INFO(out);
  REQUIRE(code == 0);
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/cmp/comparison.json"));
  const auto in_collective = [](const nlohmann::json& split) {
    return split["communication_s"].get<double>() + split["waiting_s"].get<double>();
  };
  const double measured = in_collective(j["measured"]["split"]);
  const double predicted = in_collective(j["predicted"][0]["split"]);
  CHECK(predicted == Approx(measured).epsilon(0.2));
}

TEST_CASE("compare --host-cores refuses a run it cannot model that way, naming what is missing", "[compare]") {
  const auto dir = test::temp_dir("cli_host_cores");
  std::filesystem::create_directories(dir + "/run");
  const std::string ops = test::ops_header() + test::op_line(0, 0, 0, "compute", false, 0, 1) +
                          test::op_line(1, 0, 0, "compute", false, 0, 1);
  test::write_file(dir + "/run/ops.csv", ops);
  const auto compare = [&](const std::string& summary, const std::string& profile) {
    test::write_file(dir + "/run/summary.json", summary);
    test::write_file(dir + "/run/compute_profile.json", profile);
    std::string out;
    const int code = test::run_geotrain("compare " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --network-model flow "
                                        "--host-cores --measured " + dir + "/run --out " + dir + "/cmp", out);
    return std::make_pair(code, out);
  };
  const std::string wall_only = R"({"format": "geotrain-compute-profile", "ops": [{"kind": "forward", "layer_begin": 0,
    "layer_end": 4, "sequences": 4, "median_s": 0.5}]})";
  // A real run (no shared machine) has no host_cores.
  auto [code, out] = compare(R"({"format": "geotrain-real-summary", "scenario": "s", "iterations": 1})", wall_only);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("has no host_cores"));
  std::tie(code, out) = compare(R"({"format": "geotrain-emu-summary", "scenario": "s", "iterations": 1,
    "host_cores": 2, "torch_threads": 4})", wall_only);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("ran 4 torch threads per worker"));
  std::tie(code, out) = compare(R"({"format": "geotrain-emu-summary", "scenario": "s", "iterations": 1,
    "host_cores": 2, "torch_threads": 1})", wall_only);
  CHECK(code == 2);
  CHECK_THAT(out, Catch::Contains("compute_profile.json has no CPU times"));
  CHECK_FALSE(std::filesystem::exists(dir + "/cmp"));  // refused before anything was written
}

TEST_CASE("validate --reuse-only keeps the committed comparison of a case without run data", "[compare]") {
  // A clone has each case's comparison.csv but no ops.csv: the summary must still cover it.
  const auto dir = test::temp_dir("validate_kept");
  std::filesystem::create_directories(dir + "/scenarios");
  std::filesystem::create_directories(dir + "/out/ddp__case9");
  std::filesystem::copy_file(GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml", dir + "/scenarios/ddp__case9.yaml");
  std::filesystem::copy_file(GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml", dir + "/scenarios/ps__case9.yaml");
  const std::string header =
      "scenario,strategy,world_size,network_model,measured_s,measured_min_s,measured_max_s,"
      "predicted_s,error_pct,compute_measured_s,compute_predicted_s,communication_measured_s,"
      "communication_predicted_s,waiting_measured_s,waiting_predicted_s,other_measured_s,"
      "other_predicted_s,measured_mean_s,predicted_mean_s,mean_error_pct,p10_measured_s,"
      "p10_predicted_s,p90_measured_s,p90_predicted_s,p90_error_pct";
  const std::string row = "ddp__case9,ddp-allreduce,2,flow,1,1,1,1.03,3.000,0,0,0,0,0,0,0,0,1,1.02,2.000,1,1,1,1.01,1.000";
  test::write_file(dir + "/out/ddp__case9/comparison.csv", header + "\n" + row + "\n");
  std::string out;
  REQUIRE(test::run_geotrain("validate --scenarios " + dir + "/scenarios --out " + dir + "/out --reuse-only --no-plots", out) == 0);
  CHECK_THAT(out, Catch::Contains("ddp__case9 (no run data here: its committed comparison.csv kept)"));
  std::ifstream csv(dir + "/out/summary.csv");
  std::string first, kept, none;
  std::getline(csv, first);
  std::getline(csv, kept);
  CHECK(first == "variant,network," + header + ",measured_runs,measured_run_spread_pct,predicted_runs,"
                 "predicted_run_spread_pct");
  CHECK(kept == "ddp,case9," + row + ",,,,");  // the ensemble columns it predates: unknown
  CHECK_FALSE(std::getline(csv, none));  // ps__case9 has neither run data nor a comparison
  CHECK_THAT(out, Catch::Contains("ps__case9 (left out of the summary: no run data and no comparison.csv"));
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/out/summary.json"));
  CHECK(j["error_by_network_model"]["flow"]["cases"] == 1);
  CHECK(j["error_by_network_model"]["flow"]["max_abs_error_pct"].get<double>() == Approx(3));
  CHECK(j["p90_error_by_network_model"]["flow"]["max_abs_error_pct"].get<double>() == Approx(1));
}

}  // namespace compare_cli_test
