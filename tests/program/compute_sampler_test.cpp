// simulation.compute_variance: sampled (sim/workload/compute_sampler.hpp) against closed forms:
// the interpolated quantile, the counter-based draw, and ComputeModel's sampled times.
#include "sim/workload/compute_sampler.hpp"

#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"
#include <filesystem>
#include <fstream>
#include <set>

#include "program_test_util.hpp"
#include "sim/common/quantile.hpp"
#include "sim/program/dynamic_rules.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim/workload/compute_ops.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compute_sampler_test {

using namespace geotrain;

namespace {

Scenario sampled_scenario(const std::string& profile, const std::string& variance, int seed = 1) {
  return test::profiled_scenario(profile, variance, seed);
}

// forward [0, 4) x 8 sequences measured 0.1, 0.3, 0.2 s (median 0.2); backward [0, 4) x 8 with
// a median and no samples.
std::string write_profile() {
  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_compute_sampler_test");
  std::filesystem::create_directories(dir);
  const auto path = dir / "profile.json";
  std::ofstream(path) << R"({
    "format": "geotrain-compute-profile", "version": 1, "model": "gpt-tiny", "device_profile": "cpu",
    "ops": [
      {"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
       "median_s": 0.2, "samples_s": [0.1, 0.3, 0.2]},
      {"kind": "backward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
       "median_s": 0.5}]})";
  return path.string();
}

}  // namespace

TEST_CASE("interpolated quantile of 1..5 at several positions", "[program][compute]") {
  const std::vector<double> v{1, 2, 3, 4, 5};
  // Position q x (n - 1) = 4q between the order statistics.
  CHECK(sorted_quantile(v, 0) == 1);
  CHECK(sorted_quantile(v, 0.1) == Approx(1.4));
  CHECK(sorted_quantile(v, 0.25) == 2);
  CHECK(sorted_quantile(v, 0.5) == 3);
  CHECK(sorted_quantile(v, 0.6) == Approx(3.4));
  CHECK(sorted_quantile(v, 0.9) == Approx(4.6));
  CHECK(sorted_quantile(v, 1) == 5);
  CHECK(sorted_quantile(v, 1.5) == 5);  // clamped
  CHECK(sorted_quantile({7}, 0.3) == 7);
  CHECK(sorted_quantile({}, 0.3) == 0);
}

TEST_CASE("compute draws are counter-based, keyed by seed and site, apart from the stragglers",
          "[program][compute]") {
  const ComputeSampler a(1), again(1), other(2);
  const ComputeSite site{3, 17, 5};
  CHECK(a.unit(site) == again.unit(site));  // no state: the same site, the same value
  CHECK(a.unit(site) != other.unit(site));
  CHECK(a.unit(site) != a.unit({3, 18, 5}));
  CHECK(a.unit(site) != a.unit({4, 17, 5}));
  CHECK(a.unit(site) != a.unit({3, 17, 6}));
  // The stragglers draw unit_draw(seed, rank, iteration, op) with their own seed (default 1 like
  // the scenario's): the salt keeps the two streams apart.
  CHECK(a.unit(site) != unit_draw(1, 3, 17, 5));
  // Draws spread over [0, 1): 1000 sites, every tenth of the interval hit.
  std::set<int> deciles;
  for (int it = 0; it < 1000; ++it) {
    const double u = a.unit({0, it, 0});
    REQUIRE(u >= 0);
    REQUIRE(u < 1);
    deciles.insert(static_cast<int>(u * 10));
  }
  CHECK(deciles.size() == 10);
}

TEST_CASE("a sampled time is the quantile of the sorted samples at the draw, else the fallback",
          "[program][compute]") {
  const ComputeSampler sampler(7);
  const std::vector<double> sorted{0.1, 0.2, 0.3};
  for (int it = 0; it < 20; ++it) {
    const ComputeSite site{0, it, 0};
    const double u = sampler.unit(site);
    CHECK(sampler.seconds(sorted, 9, site) == Approx(0.1 + 0.2 * u));  // linear on 0.1, 0.2, 0.3
    CHECK(sampler.seconds({}, 0.25, site) == 0.25);
  }
}

TEST_CASE("sampled compute variance: draws from the entry, scaled like the median",
          "[program][compute]") {
  const std::string file = write_profile();
  const Scenario s = sampled_scenario(file, "sampled", 11);
  const ComputeModel model(s);
  const ComputeSampler sampler(11);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  const ComputeOp half = forward_op(s.model, 0, 0, 0, 4, 4);  // nearest entry, flop ratio ~1/2
  const ComputeOp b = backward_op(s.model, 0, 0, 0, 4, 8);
  const ComputeOp o = optimizer_op(s.model, Optimizer::adam, 0, 0, 4);
  bool differs_from_median = false;
  for (int it = 0; it < 10; ++it) {
    const ComputeSite site{1, it, 2};
    const double drawn = 0.1 + 0.2 * sampler.unit(site);  // quantile of {0.1, 0.2, 0.3}
    CHECK(model.seconds(f, 0, site) == Approx(drawn));
    CHECK(model.seconds(f, 1, site) == Approx(3 * drawn));  // slowdown 3
    CHECK(model.seconds(half, 0, site) == Approx(drawn * half.flops / f.flops));
    CHECK(model.seconds(b, 0, site) == model.seconds(b, 0));  // no samples: the median
    CHECK(model.seconds(o, 0, site) == model.seconds(o, 0));  // no entry: the device model
    differs_from_median |= model.seconds(f, 0, site) != 0.2;
  }
  CHECK(differs_from_median);
  // The two-argument form stays the median.
  CHECK(model.seconds(f, 0) == 0.2);
}

TEST_CASE("median compute variance ignores the site", "[program][compute]") {
  const Scenario s = sampled_scenario(write_profile(), "median");
  const ComputeModel model(s);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  for (int it = 0; it < 5; ++it) CHECK(model.seconds(f, 1, {0, it, 0}) == model.seconds(f, 1));
  CHECK(model.seconds(f, 1) == Approx(0.6));
}

}  // namespace compute_sampler_test
