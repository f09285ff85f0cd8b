// `geotrain validate --plan` end to end with a stand-in for geotrain-worker --profile that answers
// with chosen op times (no LibTorch, no root), so the planned prediction has a closed-form floor:
// a rank's compute per iteration (forward 0.5 s, backward 1 s, optimizer 10 ms per op) and at most a
// few seconds of communication on top. Checked: the prediction comes from the planned profile (the
// judged run has none here), the error against the committed measurement, one
// profile made for a case and reused by a second run (same figures), a case with a profile made
// just before its run (validate's plan_profile.json, two workers at once) predicted from that one
// instead and counted as profiled under its run's load, a case without a committed comparison
// left out and said, a bad --scenarios refused before anything is written.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "sim/scenario/scenario_loader.hpp"
#include "emu/worker/profile_ops.hpp"
#include "sim/workload/compute_profile.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "tests/support/profile_worker_stand_in.hpp"
#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace plan_validation_test {

namespace {

namespace fs = std::filesystem;

const std::string kGeotrain = GEOTRAIN_BINARY;
const std::string kRing2 = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml";

double chosen_time(geotrain::ComputeKind k) {
  return k == geotrain::ComputeKind::forward ? 0.5 : k == geotrain::ComputeKind::backward ? 1.0 : 0.01;
}

// A geotrain-worker stand-in in `dir` answering every distinct op of ddp_ring_2 with its chosen
// time (wall = CPU), and rank 0's compute per iteration under those times.
std::pair<std::string, double> fake_worker(const std::string& dir) {
  const auto program = geotrain::build_program(geotrain::load_scenario(kRing2, {}));
  double compute = 0;
  for (const auto& op : program.ranks.at(0))
    if (const auto* c = op.as<geotrain::ComputeOp>()) compute += chosen_time(c->kind);
  return {geotrain::test::profile_worker_stand_in(dir, program,
                                                  [](const geotrain::ComputeOp& op) { return chosen_time(op.kind); }),
          compute};
}

std::string text_of(const std::string& path) {
  std::ifstream in(path);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

nlohmann::json read_json(const std::string& path) { return nlohmann::json::parse(text_of(path)); }

// The suite: ring__a (ddp_ring_2), ring__b (the same shapes on another network), ring__c (no
// comparison committed).
void write_suite(const std::string& dir) {
  fs::create_directories(dir);
  const std::string ring = text_of(kRing2);
  std::ofstream(dir + "/ring__a.yaml") << ring;
  std::string other = ring;
  const std::string intra = "intra: {delay: 5ms, bandwidth: 2Gbps}";
  other.replace(other.find(intra), intra.size(), "intra: {delay: 20ms, bandwidth: 1Gbps}");
  std::ofstream(dir + "/ring__b.yaml") << other;
  std::ofstream(dir + "/ring__c.yaml") << ring;
}

// A committed comparison as `geotrain validate` leaves it: the judged run (emu_run2) measured
// `measured_s`; its folder keeps summary.json only, as a clone has it.
void write_comparison(const std::string& case_dir, double measured_s) {
  fs::create_directories(case_dir + "/emu_run2");
  std::ofstream(case_dir + "/comparison.json")
      << nlohmann::json{{"format", "geotrain-comparison"},
                        {"measured", {{"dir", "somewhere/else/emu_run2"}, {"iteration_time_s", measured_s}, {"mean_s", measured_s}}},
                        {"predicted", {{{"network_model", "flow"}, {"iteration_time_s", measured_s * 1.01}, {"error_pct", 1.0}}}}}
             .dump();
  std::ofstream(case_dir + "/emu_run2/summary.json")
      << nlohmann::json{{"format", "geotrain-emu-summary"}, {"iterations", 4}, {"warmup_iterations", 1},
                        {"host_cores", 2}, {"torch_threads", 1}, {"collectives", "p2p"}}
             .dump();
}

// The judged run's own compute profile, its ops `factor` times the planned profile's (wall and CPU):
// a run on a machine that computed that much slower.
void write_run_profile(const std::string& case_dir, double factor) {
  const auto program = geotrain::build_program(geotrain::load_scenario(kRing2, {}));
  std::vector<geotrain::ProfileSample> samples;
  for (const auto& site : geotrain::distinct_compute_ops(program)) {
    const auto& c = *program.ranks.at(static_cast<std::size_t>(site.rank))
                         .at(static_cast<std::size_t>(site.op))
                         .as<geotrain::ComputeOp>();
    geotrain::ProfileSample sample;
    sample.op = c;
    sample.seconds = sample.cpu_seconds = factor * chosen_time(c.kind);
    samples.push_back(sample);
  }
  geotrain::write_compute_profile(case_dir + "/emu_run2/compute_profile.json", geotrain::summarize_samples(samples),
                                  "gpt-tiny", "cpu");
}

std::string validate(const std::string& worker, const std::string& suite, const std::string& out) {
  return "GEOTRAIN_WORKER=" + worker + " " + kGeotrain + " validate --plan --scenarios " + suite + " --out " + out +
         " --seeds 2 --network-model flow --no-plots 2>&1";
}

}  // namespace

TEST_CASE("validate --plan: planned profile, committed measurement, shared and reused profiles", "[compare][plan]") {
  const std::string dir = geotrain::test::process_temp_path("geotrain-plan-validation");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto [worker, compute] = fake_worker(dir);
  write_suite(dir + "/suite");
  write_comparison(dir + "/out/ring__a", 4.0);
  write_comparison(dir + "/out/ring__b", 5.0);
  write_run_profile(dir + "/out/ring__a", 1.2);   // a slower machine than the profile's
  write_run_profile(dir + "/out/ring__b", 1.05);  // within 10 % of it
  // ring__b was profiled just before its run, as validate does for a case it emulates: as many
  // workers at once as its ranks.
  const auto profiled = geotrain::test::sh("GEOTRAIN_WORKER=" + worker + " " + kGeotrain + " profile " + dir +
                                         "/suite/ring__b.yaml --concurrent 2 --out " + dir +
                                         "/out/ring__b/plan_profile.json 2>&1");
  INFO(profiled.out);
  REQUIRE(profiled.status == 0);

  const auto first = geotrain::test::sh(validate(worker, dir + "/suite", dir + "/out"));
  INFO(first.out);
  REQUIRE(first.status == 0);
  const auto summary = read_json(dir + "/out/plan/summary.json");
  CHECK(summary["profiling"]["profiles_made"] == 1);  // ring__a's; ring__b has its own
  CHECK(summary["profiling"]["profiles_reused"] == 0);
  REQUIRE(summary["left_out"].size() == 1);
  CHECK(summary["left_out"][0].get<std::string>().rfind("ring__c: no comparison.json", 0) == 0);
  CHECK(first.out.find("ring__c") != std::string::npos);

  std::istringstream csv(text_of(dir + "/out/plan/summary.csv"));
  std::string header, line;
  std::getline(csv, header);
  CHECK(header.rfind("variant,network,model,world_size,network_model,host_cores,measured_s,same_run_predicted_s,"
                     "same_run_error_pct,planned_s,planning_error_pct,", 0) == 0);
  int rows = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream cells(line);
    for (std::string cell; std::getline(cells, cell, ',');) f.push_back(cell);
    REQUIRE(f.size() == 23);
    ++rows;
    const double measured = std::stod(f[6]), planned = std::stod(f[9]), error = std::stod(f[10]);
    INFO(line);
    CHECK(f[0] == "ring");
    CHECK(f[5] == "0");  // 2 ranks on 2 cores: a device each, no shared cores
    CHECK(std::stod(f[8]) == Approx(1.0));
    // The planned profile's compute is the floor, and communication adds seconds at most.
    CHECK(planned >= compute);
    CHECK(planned <= compute + 5.0);
    CHECK(error == Approx(100.0 * (planned - measured) / measured).margin(1e-3));
    // How fast the run computed against the planned profile: a diagnostic column only.
    CHECK(std::stod(f[15]) == Approx(f[1] == "a" ? 1.2 : 1.05).margin(1e-3));
    // The seeds' p10-p90 range holds the judged prediction; the stand-in's samples are all equal,
    // so they share nothing from one to the next (machine share 0); the flag says whether the
    // measured run fell in the range.
    const double p10 = std::stod(f[17]), p90 = std::stod(f[18]);
    CHECK(p10 <= planned + 1e-6);
    CHECK(planned <= p90 + 1e-6);
    CHECK(std::stod(f[19]) == 0);
    CHECK(f[20] == (measured >= p10 && measured <= p90 ? "1" : "0"));
    // Where the profile came from: ring__b's own, made before its run; ring__a's the shared folder's.
    CHECK(f[21] == (f[1] == "b" ? "1" : "0"));
    CHECK(f[22] == (f[1] == "b" ? "2" : "1"));  // workers that made the profile at once
    if (f[1] == "b") CHECK(f[16] == "ring__b/plan_profile.json");
    else CHECK(f[16].size() == std::string("0123456789abcdef.json").size());
  }
  CHECK(rows == 2);
  const std::string table = text_of(dir + "/out/plan/table.md");
  CHECK(table.find("| all runs at the profile's speed (compute within 10 %) | flow | 1 |") != std::string::npos);
  CHECK(table.find("| all | flow | 2 |") != std::string::npos);
  CHECK(table.find("| all runs profiled just before (validate's case profile) | flow | 1 |") != std::string::npos);
  CHECK(table.find("| profiled just before, as many workers at once as the run's ranks | flow | 1 |") !=
        std::string::npos);
  CHECK(table.find("run within planned p10-p90 |") != std::string::npos);

  // Run again: the profile is reused, the figures are the same.
  const std::string before = text_of(dir + "/out/plan/summary.csv");
  const auto second = geotrain::test::sh(validate(worker, dir + "/suite", dir + "/out"));
  INFO(second.out);
  REQUIRE(second.status == 0);
  CHECK(read_json(dir + "/out/plan/summary.json")["profiling"]["profiles_made"] == 0);
  CHECK(read_json(dir + "/out/plan/summary.json")["profiling"]["profiles_reused"] == 1);
  CHECK(text_of(dir + "/out/plan/summary.csv") == before);
  fs::remove_all(dir);
}

TEST_CASE("validate --plan: a missing suite folder is refused before anything is written", "[compare][plan]") {
  const std::string dir = geotrain::test::process_temp_path("geotrain-plan-validation-bad");
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto r = geotrain::test::sh(kGeotrain + " validate --plan --scenarios " + dir + "/none --out " + dir +
                                    "/out 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("--scenarios " + dir + "/none: not a directory") != std::string::npos);
  CHECK_FALSE(fs::exists(dir + "/out"));
  fs::remove_all(dir);
}

}  // namespace plan_validation_test
