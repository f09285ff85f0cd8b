// simulation.compute_variance: steps (sim/workload/compute_sampler.hpp, compute_model.cpp):
// whole measured steps drawn without replacement, every rank's op taking what it took in the
// drawn step; the sites round-trip through the profile file; a bad sample_sites is named.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

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

std::string steps_profile() {
  std::string samples, sites;
  for (int r = 0; r < 2; ++r)
    for (int s = 1; s <= 3; ++s) {
      samples += fmt::format("{}{}", samples.empty() ? "" : ", ", measured(r, s));
      sites += fmt::format("{}[{}, {}, 0]", sites.empty() ? "" : ", ", r, s);
    }
  return write_file("steps.json", fmt::format(R"({{
    "format": "geotrain-compute-profile", "version": 1, "ops": [
      {{"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
        "median_s": 0.2, "samples_s": [{}], "sample_sites": [{}]}}]}})",
                                              samples, sites));
}

}  // namespace

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
