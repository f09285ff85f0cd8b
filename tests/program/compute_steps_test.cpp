// simulation.compute_variance: steps (sim/workload/compute_sampler.hpp, compute_model.cpp):
// whole measured steps drawn without replacement, every rank's op taking what it took in the
// drawn step; the sites round-trip through the profile file; a bad sample_sites is named; the
// run's warm-up step, kept apart, replays for the simulation's warm-up iteration.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim/workload/compute_ops.hpp"
#include "sim/workload/compute_profile.hpp"
#include "sim/workload/compute_sampler.hpp"
#include "tests/support/remove_at_exit.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compute_steps_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_compute_steps_test");
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << text;
  return path.string();
}

Scenario steps_scenario(const std::string& profile, int seed) {
  return test::profiled_scenario(profile, "steps", seed);
}

// Forward [0, 4) x 8 sequences measured as op 0 of ranks 0 and 1 in steps 1, 2, 3; rank r's
// time in step s is (r + 1) x 0.1 + s x 0.01, so a time names its rank and step.
double measured(int rank, int step) { return (rank + 1) * 0.1 + step * 0.01; }

// The measured samples above and their sites, as JSON list bodies.
std::pair<std::string, std::string> measured_lists() {
  std::string samples, sites;
  for (int r = 0; r < 2; ++r)
    for (int s = 1; s <= 3; ++s) {
      samples += fmt::format("{}{}", samples.empty() ? "" : ", ", measured(r, s));
      sites += fmt::format("{}[{}, {}, 0]", sites.empty() ? "" : ", ", r, s);
    }
  return {samples, sites};
}

std::string steps_profile() {
  const auto [samples, sites] = measured_lists();
  return write_file("steps.json", fmt::format(R"({{
    "format": "geotrain-compute-profile", "version": 1, "ops": [
      {{"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
        "median_s": 0.2, "samples_s": [{}], "sample_sites": [{}]}}]}})",
                                              samples, sites));
}

// steps_profile() with the run's warm-up step 0 kept apart: rank r took warmup(r) s (CPU half).
double warmup(int rank) { return (rank + 1) * 1.0; }

std::string steps_profile_with_warmup(const char* sites = "[[0, 0, 0], [1, 0, 0]]") {
  const auto [samples, measured_sites] = measured_lists();
  return write_file("steps_warmup.json", fmt::format(R"({{
    "format": "geotrain-compute-profile", "version": 1, "ops": [
      {{"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
        "median_s": 0.2, "samples_s": [{0}], "sample_sites": [{1}],
        "cpu_median_s": 0.1, "cpu_samples_s": [{0}],
        "warmup_samples_s": [{2}, {3}], "warmup_cpu_samples_s": [{4}, {5}],
        "warmup_sample_sites": {6}}}]}})",
                                                     samples, measured_sites, warmup(0), warmup(1),
                                                     warmup(0) / 2, warmup(1) / 2, sites));
}

}  // namespace

TEST_CASE("steps compute variance: the simulation's warm-up iteration replays the run's warm-up step",
          "[program][compute]") {
  const Scenario s = steps_scenario(steps_profile_with_warmup(), 3);
  const ComputeModel model(s);
  const ComputeSampler sampler(3);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  // Iteration 0 (before the first measured step, 1) is the run's step 0, rank by rank.
  CHECK(model.seconds(f, 0, {0, 0, 0}) == Approx(warmup(0)));
  CHECK(model.seconds(f, 0, {1, 0, 0}) == Approx(warmup(1)));
  CHECK(model.seconds(f, 1, {1, 0, 0}) == Approx(3 * warmup(1)));  // slowdown 3
  // The measured steps go on as without it, and the median leaves the warm-up out.
  for (int it = 1; it <= 3; ++it) {
    const int step = 1 + static_cast<int>(sampler.measured_step(it, 1, 3));
    CHECK(model.seconds(f, 0, {0, it, 0}) == Approx(measured(0, step)));
  }
  CHECK(model.seconds(f, 0) == 0.2);
  // A rank the warm-up has no sample for: the draw, as before.
  const double drawn = model.seconds(f, 0, {0, 0, 4});
  CHECK(drawn >= measured(0, 1));
  CHECK(drawn <= measured(1, 3));
  // On the shared cores (host_cores) the warm-up replays its CPU times.
  Scenario cores = s;
  cores.simulation.host_cores = 2;
  const ComputeModel on_cores(cores);
  CHECK(on_cores.seconds(f, 0, {1, 0, 0}) == Approx(warmup(1) / 2));
  // Other variances never look at it: sampled draws from the measured samples alone.
  const ComputeModel sampled(test::profiled_scenario(steps_profile_with_warmup(), "sampled", 3));
  for (int rank = 0; rank < 2; ++rank) CHECK(sampled.seconds(f, 0, {rank, 0, 0}) <= measured(1, 3));
}

TEST_CASE("warm-up samples: kept apart by summarize_samples, round-trip, and a bad list is named",
          "[program][compute]") {
  const Scenario s = steps_scenario(steps_profile(), 1);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  const ComputeOp b = backward_op(s.model, 0, 0, 0, 4, 8);
  const std::vector<ProfileSample> samples{
      {f, 5.0, 0.5, {0, 0, 0}, true}, {f, 0.1, 0.05, {0, 1, 0}}, {f, 0.2, 0.06, {1, 1, 0}},
      {b, 7.0, 0.7, {0, 0, 1}, true}};  // b has no measured sample: its warm-up is left out
  const auto entries = summarize_samples(samples);
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].median_s == Approx(0.15));
  REQUIRE(entries[0].warmup_samples_s == std::vector<double>{5.0});
  CHECK(entries[0].warmup_cpu_samples_s == std::vector<double>{0.5});
  const std::string file = write_file("written_warmup.json", "");
  write_compute_profile(file, entries, "gpt-tiny", "cpu");
  const auto back = read_compute_profile(file, s);
  REQUIRE(back[0].warmup_sample_sites.size() == 1);
  CHECK(back[0].warmup_sample_sites[0].step == 0);
  CHECK(back[0].warmup_samples_s == std::vector<double>{5.0});
  CHECK(back[0].warmup_cpu_samples_s == std::vector<double>{0.5});
  CHECK(back[0].samples_s.size() == 2);
  CHECK_THROWS_WITH(read_compute_profile(steps_profile_with_warmup("[[0, 0, 0]]"), s),
                    Contains("ops[0].warmup_sample_sites: expected one [rank, step, op] of integers "
                             ">= 0 per sample (2 samples)"));
  const std::string no_sites = write_file("warmup_no_sites.json", R"({
    "format": "geotrain-compute-profile", "version": 1, "ops": [
      {"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
       "median_s": 0.2, "samples_s": [0.1], "warmup_samples_s": [1.0]}]})");
  CHECK_THROWS_WITH(read_compute_profile(no_sites, s), Contains("ops[0].warmup_sample_sites: missing"));
}

TEST_CASE("measured steps: each run of count iterations is a permutation, keyed by the seed",
          "[program][compute]") {
  const ComputeSampler a(5), again(5);
  std::set<std::vector<std::size_t>> orders;
  for (std::int64_t cycle = -1; cycle < 20; ++cycle) {
    std::vector<std::size_t> order;
    for (std::int64_t k = 0; k < 7; ++k) order.push_back(a.measured_step(3 + cycle * 7 + k, 3, 7));
    CHECK(std::set<std::size_t>(order.begin(), order.end()) == std::set<std::size_t>{0, 1, 2, 3, 4, 5, 6});
    for (std::int64_t k = 0; k < 7; ++k)
      CHECK(again.measured_step(3 + cycle * 7 + k, 3, 7) == order[static_cast<std::size_t>(k)]);
    orders.insert(order);
  }
  CHECK(orders.size() > 15);  // 21 cycles of 5040 orders: nearly all differ
  CHECK(a.measured_step(9, 3, 1) == 0);
}

TEST_CASE("steps compute variance: every rank takes its own time from the iteration's drawn step",
          "[program][compute]") {
  const std::string file = steps_profile();
  const Scenario s = steps_scenario(file, 3);
  const ComputeModel model(s);
  const ComputeSampler sampler(3);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  std::set<int> used;
  for (int it = 1; it <= 3; ++it) {  // the measured steps were 1..3: one cycle
    const int step = 1 + static_cast<int>(sampler.measured_step(it, 1, 3));
    used.insert(step);
    CHECK(model.seconds(f, 0, {0, it, 0}) == Approx(measured(0, step)));
    CHECK(model.seconds(f, 0, {1, it, 0}) == Approx(measured(1, step)));  // the same step
    CHECK(model.seconds(f, 1, {1, it, 0}) == Approx(3 * measured(1, step)));  // slowdown 3
  }
  CHECK(used == std::set<int>{1, 2, 3});
  // No sample at (rank 0, op 4): the independent draw from the entry's samples.
  const double fallback = model.seconds(f, 0, {0, 2, 4});
  CHECK(fallback >= measured(0, 1));
  CHECK(fallback <= measured(1, 3));
  // The median stays the median.
  CHECK(model.seconds(f, 0) == 0.2);
}

TEST_CASE("sample sites: summarized with the samples, round-trip, dropped when one is missing",
          "[program][compute]") {
  const Scenario s = steps_scenario(steps_profile(), 1);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  const ComputeOp b = backward_op(s.model, 0, 0, 0, 4, 8);
  std::vector<ProfileSample> samples{{f, 0.1, 0.05, {0, 1, 0}}, {f, 0.2, 0.06, {1, 1, 0}},
                                     {b, 0.3, 0.07, {0, 1, 1}}, {b, 0.4, 0.08, {}}};
  const auto entries = summarize_samples(samples);
  REQUIRE(entries.size() == 2);
  REQUIRE(entries[0].sample_sites.size() == 2);
  CHECK(entries[0].sample_sites[1].rank == 1);
  CHECK(entries[1].sample_sites.empty());  // one execution without a site: none kept
  const std::string file = write_file("written.json", "");
  write_compute_profile(file, entries, "gpt-tiny", "cpu");
  const auto back = read_compute_profile(file, s);
  REQUIRE(back[0].sample_sites.size() == 2);
  CHECK(back[0].sample_sites[1].step == 1);
  CHECK(back[0].sample_sites[1].op == 0);
  CHECK(back[1].sample_sites.empty());
}

TEST_CASE("a sample_sites list of the wrong length or shape is named", "[program][compute]") {
  const Scenario s = steps_scenario(steps_profile(), 1);
  for (const char* sites : {"[[0, 1, 0]]", "[[0, 1], [0, 2, 0]]", "[[0, -1, 0], [0, 2, 0]]", "7"}) {
    const std::string file = write_file("bad_sites.json", fmt::format(R"({{
      "format": "geotrain-compute-profile", "version": 1, "ops": [
        {{"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
          "median_s": 0.2, "samples_s": [0.1, 0.2], "sample_sites": {}}}]}})", sites));
    CHECK_THROWS_WITH(read_compute_profile(file, s),
                      Contains("ops[0].sample_sites: expected one [rank, step, op] of integers >= 0 "
                               "per sample (2 samples)"));
  }
}

TEST_CASE("compute_variance: steps needs a compute profile", "[program][compute]") {
  CHECK_THROWS_WITH(
      parse_scenario("devices: {count: 2, profile: V100, regions: [lab]}\n"
                     "network: {regions: {intra: {delay: 5ms, bandwidth: 2Gbps}}}\n"
                     "model: {preset: gpt-tiny}\nstrategy: {name: ddp-allreduce}\n"
                     "simulation: {compute_variance: steps}\n",
                     "test.yaml", test::kSource + "/scenarios/examples"),
      Contains("simulation.compute_variance = 'steps': needs simulation.compute_profile"));
}

}  // namespace compute_steps_test
