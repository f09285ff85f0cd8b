// simulation.compute_variance: machine (sim/workload/machine_speed.hpp) against closed forms: the
// lag-1 correlation of normal scores on sequences whose scores are known, the run/site blend of
// the draws, and ComputeModel's machine draws with the share its profile measures.
#include "sim/workload/machine_speed.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "program_test_util.hpp"
#include "sim/common/quantile.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim/workload/compute_ops.hpp"
#include "sim/workload/compute_sampler.hpp"
#include "tests/support/remove_at_exit.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace machine_speed_test {

using namespace geotrain;

namespace {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// k samples of `low` then k of `high`: the ties share their mean rank, so the scores are -a
// (k times) then +a (k times) with a = Phi^-1(3/4); of the 2k - 1 neighbour pairs one crosses,
// so the correlation is ((2k - 2) - 1) a^2 / (2k a^2) = (2k - 3) / 2k.
std::vector<double> two_blocks(int k, double low, double high) {
  std::vector<double> v(static_cast<std::size_t>(k), low);
  v.insert(v.end(), static_cast<std::size_t>(k), high);
  return v;
}

// low, high, low, ...: every pair crosses, the correlation is -(2k - 1) / 2k.
std::vector<double> alternating(int k, double low, double high) {
  std::vector<double> v;
  for (int i = 0; i < k; ++i) v.insert(v.end(), {low, high});
  return v;
}

std::string json_list(const std::vector<double>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// forward [0, 4) x 8 sequences with `samples` in the order taken.
std::string write_profile(const std::string& name, const std::vector<double>& samples) {
  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_machine_speed_test");
  std::filesystem::create_directories(dir);
  const auto path = dir / (name + ".json");
  std::ofstream(path) << R"({"format": "geotrain-compute-profile", "version": 1, "model": "gpt-tiny",
    "device_profile": "cpu", "ops": [{"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4,
    "sequences": 8, "median_s": 0.2, "samples_s": )" + json_list(samples) + "}]}";
  return path.string();
}

}  // namespace

TEST_CASE("lag-1 score correlation of two blocks and of an alternation", "[program][compute]") {
  CHECK(lag1_score_correlation(two_blocks(10, 0.016, 0.025)) == Approx(17.0 / 20));
  CHECK(lag1_score_correlation(two_blocks(4, 1, 2)) == Approx(5.0 / 8));
  CHECK(lag1_score_correlation(alternating(5, 1, 2)) == Approx(-9.0 / 10));
  // Too few samples to say, or no spread: nothing shared.
  CHECK(lag1_score_correlation({1, 2, 3, 4, 5, 6, 7}) == 0);
  CHECK(lag1_score_correlation(std::vector<double>(20, 0.3)) == 0);
}

TEST_CASE("machine share pools entries by neighbour pairs and clips to [0, 1]", "[program][compute]") {
  ProfileEntry blocks, alternation, few;
  blocks.samples_s = two_blocks(10, 1, 2);       // 19 pairs at 17/20
  alternation.samples_s = alternating(5, 1, 2);  // 9 pairs at -9/10
  few.samples_s = {1, 2, 3};                     // left out
  CHECK(machine_share({blocks}) == Approx(0.85));
  CHECK(machine_share({blocks, few}) == Approx(0.85));
  CHECK(machine_share({blocks, alternation}) == Approx((19 * 0.85 - 9 * 0.9) / 28));
  CHECK(machine_share({alternation}) == 0);  // negative: clipped
  CHECK(machine_share({few}) == 0);
  CHECK(machine_share({}) == 0);
}

TEST_CASE("a machine draw blends the run's and the site's normal scores", "[program][compute]") {
  const double u = normal_cdf(1.0), w = normal_cdf(-0.5);
  CHECK(machine_unit(0.3, 0.7, 0) == 0.7);  // share 0: the site's draw, to the bit
  CHECK(machine_unit(u, w, 1) == Approx(u));  // share 1: the run's
  // share 1/2, both at z = 1: Phi(sqrt(2)).
  CHECK(machine_unit(u, u, 0.5) == Approx(normal_cdf(std::sqrt(2.0))));
  // share 0.64: Phi(0.8 x 1 + 0.6 x -0.5) = Phi(0.5).
  CHECK(machine_unit(u, w, 0.64) == Approx(normal_cdf(0.5)));
  // The extremes of a uniform draw stay finite.
  CHECK(std::isfinite(machine_unit(0, 0.5, 0.5)));
  CHECK(machine_unit(0, 0, 1) < 1e-6);
}

TEST_CASE("the run's draw is one per seed, apart from the sites'", "[program][compute]") {
  const ComputeSampler a(5), again(5), other(6);
  CHECK(a.run_unit() == again.run_unit());
  CHECK(a.run_unit() != other.run_unit());
  CHECK(a.run_unit() != a.unit({0, 0, 0}));
}

TEST_CASE("machine compute variance: every op drawn around the run's state with the profile's share",
          "[program][compute]") {
  const auto samples = two_blocks(10, 0.016, 0.025);
  const Scenario s = test::profiled_scenario(write_profile("blocks", samples), "machine", 11);
  const ComputeModel model(s);
  CHECK(model.machine_share() == Approx(0.85));
  const ComputeSampler sampler(11);
  auto sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  for (int it = 0; it < 10; ++it) {
    const ComputeSite site{1, it, 2};
    const double u = machine_unit(sampler.run_unit(), sampler.unit(site), 17.0 / 20);
    CHECK(model.seconds(f, 0, site) == Approx(sorted_quantile(sorted, u)));
    CHECK(model.seconds(f, 1, site) == Approx(3 * sorted_quantile(sorted, u)));  // slowdown 3
  }
  CHECK(model.seconds(f, 0) == 0.2);  // the typical time stays the median
}

TEST_CASE("machine compute variance on a machine with nothing shared is sampled, to the bit",
          "[program][compute]") {
  const auto file = write_profile("alternating", alternating(6, 0.016, 0.025));
  const ComputeModel machine(test::profiled_scenario(file, "machine", 3));
  const ComputeModel sampled(test::profiled_scenario(file, "sampled", 3));
  CHECK(machine.machine_share() == 0);
  CHECK(sampled.machine_share() == 0);  // only measured under machine
  const Scenario s = test::profiled_scenario(file, "sampled", 3);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  for (int it = 0; it < 10; ++it) CHECK(machine.seconds(f, 0, {0, it, 1}) == sampled.seconds(f, 0, {0, it, 1}));
}

}  // namespace machine_speed_test
