#include "sim/workload/compute_model.hpp"

#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"
#include <cmath>
#include <filesystem>
#include <fstream>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/workload/compute_ops.hpp"
#include "sim/workload/compute_profile.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compute_model_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {

const char* kDevices =
    "devices:\n  count: 2\n  profile: V100\n  regions: [lab]\n  overrides: [{ids: [1], slowdown: "
    "2}]\n";

Scenario with_devices(const std::string& extra) {
  const std::string text = std::string(kDevices) +
                           "network: {regions: {intra: {delay: 5ms, bandwidth: 2Gbps}}}\n"
                           "model: {preset: gpt-tiny}\n"
                           "strategy: {name: ddp-allreduce}\n" +
                           extra;
  return parse_scenario(text, "test.yaml", test::kSource + "/scenarios/examples");
}

std::string write_profile(const std::string& name, const std::string& json) {
  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_compute_model_test");
  std::filesystem::create_directories(dir);
  const auto path = dir / name;
  std::ofstream(path) << json;
  return path.string();
}

}  // namespace

TEST_CASE("device model: flop at peak x efficiency, times the slowdown", "[program][compute]") {
  const Scenario s = with_devices("");
  const ComputeModel model(s);
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  const double rate = 15.7e12 * 0.4;  // gpt-tiny computes in fp32 on a V100
  CHECK(model.seconds(f, 0) == Approx(f.flops / rate));
  CHECK(model.seconds(f, 1) == Approx(2 * f.flops / rate));
  // The optimizer is memory-bound: 28 bytes per parameter over 900 GB/s.
  const ComputeOp o = optimizer_op(s.model, Optimizer::adam, 0, 0, 4);
  CHECK(model.seconds(o, 0) == Approx(28 * total_params(s.model) / 900e9));
}

TEST_CASE("device model: the profile's memory bandwidth, else 0.06 byte per fp32 flop", "[program][compute]") {
  const Scenario s = parse_scenario(
      "devices:\n  count: 3\n  profile: H200\n  regions: [lab]\n"
      "  profiles:\n    slow: {fp32: 10TFLOPS, memory: 16GiB}\n    fast: {like: cpu, memory_bandwidth: 100GBps}\n"
      "  overrides: [{id: 1, profile: slow}, {id: 2, profile: fast}]\n"
      "network: {regions: {intra: {delay: 5ms, bandwidth: 2Gbps}}}\n"
      "model: {preset: gpt-tiny}\nstrategy: {name: ddp-allreduce}\n",
      "test.yaml", test::kSource + "/scenarios/examples");
  const ComputeModel model(s);
  // Adam: 28 bytes per parameter, memory-bound on all three.
  const ComputeOp o = optimizer_op(s.model, Optimizer::adam, 0, 0, 4);
  const double bytes = 28 * total_params(s.model);
  CHECK(model.seconds(o, 0) == Approx(bytes / 4.8e12));          // the library's H200 figure
  CHECK(model.seconds(o, 1) == Approx(bytes / (10e12 * 0.06)));  // none declared
  CHECK(model.seconds(o, 2) == Approx(bytes / 100e9));           // declared over cpu's 20 GB/s
}

TEST_CASE("measured profile: exact entries, flop scaling, then the device model",
          "[program][compute]") {
  const std::string file = write_profile("profile.json", R"({
    "format": "geotrain-compute-profile", "version": 1, "model": "gpt-tiny", "device_profile": "cpu",
    "ops": [
      {"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8,
       "median_s": 0.010, "samples_s": [0.011, 0.010, 0.009]},
      {"kind": "backward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 8, "flops": 1e9,
       "median_s": 0.030}
    ]})");
  const Scenario s = with_devices("simulation: {compute_profile: " + file + "}\n");
  const ComputeModel model(s);
  CHECK(model.seconds(forward_op(s.model, 0, 0, 0, 4, 8), 0) == Approx(0.010));
  CHECK(model.seconds(forward_op(s.model, 0, 0, 0, 4, 8), 1) == Approx(0.020));  // slowdown 2
  // Half the sequences: no exact entry, so the measured time scales with flop.
  CHECK(model.seconds(forward_op(s.model, 0, 0, 0, 4, 4), 0) == Approx(0.005));
  // The backward entry states its flop (1e9): a 2e9-flop backward takes twice as long.
  ComputeOp b = backward_op(s.model, 0, 0, 0, 2, 3);
  b.flops = 2e9;
  CHECK(model.seconds(b, 0) == Approx(0.060));
  // No optimizer entry: the device model.
  const ComputeOp o = optimizer_op(s.model, Optimizer::adam, 0, 0, 4);
  CHECK(model.seconds(o, 0) == Approx(28 * total_params(s.model) / 900e9));
}

TEST_CASE("a malformed measured profile names each bad field", "[program][compute]") {
  const std::string file = write_profile("bad_profile.json", R"({
    "format": "geotrain-compute-profile",
    "ops": [{"kind": "fwd", "layer_begin": 0, "layer_end": 4, "median_s": 1},
            {"kind": "forward", "layer_begin": 0, "layer_end": 9, "median_s": -1},
            {"kind": "other", "layer_begin": 0, "layer_end": 1, "median_s": 1}]})");
  const Scenario s = with_devices("simulation: {compute_profile: " + file + "}\n");
  try {
    const ComputeModel model(s);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    const auto text = test::joined(e.problems());
    CHECK_THAT(text, Contains(file + ": ops[0].kind = \"fwd\": unknown kind (expected forward, "
                                     "backward, optimizer, other, outer_optimizer)"));
    CHECK_THAT(text, Contains(file + ": ops[1].layer_end = 9: expected a number from 1 to 4"));
    CHECK_THAT(text, Contains(file + ": ops[1].median_s = -1: expected a number from 0 to"));
    CHECK_THAT(text, Contains(file + ": ops[2].flops: missing (expected a number)"));
  }
  const std::string not_profile = write_profile("not_profile.json", R"({"ops": []})");
  CHECK_THROWS_WITH(
      ComputeModel(with_devices("simulation: {compute_profile: " + not_profile + "}\n")),
      Contains("expected {\"format\": \"geotrain-compute-profile\""));
}

TEST_CASE("measured samples summarize to medians, round-trip through the file",
          "[program][compute]") {
  const Scenario s = with_devices("");
  std::vector<ProfileSample> samples;
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  const ComputeOp b = backward_op(s.model, 0, 0, 0, 4, 8);
  for (double t : {0.012, 0.010, 0.011}) samples.push_back({f, t, std::nan(""), {}});
  for (double t : {0.030, 0.020}) samples.push_back({b, t, std::nan(""), {}});
  const auto entries = summarize_samples(samples);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].kind == ComputeKind::forward);
  CHECK(entries[0].median_s == 0.011);
  CHECK(entries[0].samples_s == std::vector<double>{0.012, 0.010, 0.011});
  CHECK(entries[1].median_s == Approx(0.025));
  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_compute_model_test");
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "written.json").string();
  write_compute_profile(file, entries, "gpt-tiny", "cpu");
  const Scenario measured = with_devices("simulation: {compute_profile: " + file + "}\n");
  const auto back = read_compute_profile(file, measured);
  REQUIRE(back.size() == 2);
  CHECK(back[1].samples_s == entries[1].samples_s);
  CHECK(back[0].flops == f.flops);
  const ComputeModel model(measured);
  CHECK(model.seconds(f, 0) == 0.011);
  CHECK(model.seconds(b, 1) == Approx(0.050));
}

TEST_CASE("CPU times: summarized beside the wall times, and host cores use them", "[program][compute]") {
  const Scenario s = with_devices("");
  const ComputeOp f = forward_op(s.model, 0, 0, 0, 4, 8);
  const ComputeOp b = backward_op(s.model, 0, 0, 0, 4, 8);
  // Wall times stretched by sharing a core; CPU times are not. The backward op has one sample
  // without a CPU time (an older worker), so it keeps none.
  const std::vector<ProfileSample> samples{{f, 0.020, 0.010, {}}, {f, 0.024, 0.012, {}},
                                           {f, 0.022, 0.011, {}}, {b, 0.040, 0.020, {}},
                                           {b, 0.050, std::nan(""), {}}};
  const auto entries = summarize_samples(samples);
  REQUIRE(entries.size() == 2);
  CHECK(entries[0].has_cpu_time());
  CHECK(entries[0].cpu_median_s == 0.011);
  CHECK(entries[0].cpu_samples_s == std::vector<double>{0.010, 0.012, 0.011});
  CHECK_FALSE(entries[1].has_cpu_time());
  CHECK(entries[1].cpu_samples_s.empty());

  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_compute_model_test");
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "cpu_times.json").string();
  write_compute_profile(file, {entries[0]}, "gpt-tiny", "cpu");
  const Scenario wall = with_devices("simulation: {compute_profile: " + file + "}\n");
  const auto back = read_compute_profile(file, wall);
  REQUIRE(back.size() == 1);
  CHECK(back[0].cpu_median_s == 0.011);
  CHECK(back[0].cpu_samples_s == entries[0].cpu_samples_s);
  CHECK(ComputeModel(wall).seconds(f, 0) == 0.022);
  const Scenario cores = with_devices("simulation: {compute_profile: " + file + ", host_cores: 2}\n");
  CHECK(ComputeModel(cores).seconds(f, 0) == 0.011);
  CHECK(ComputeModel(cores).seconds(f, 1) == Approx(0.022));  // the slowdown still applies

  // Host cores with a profile that lacks CPU times: an error naming the file and the op.
  const std::string old = (dir / "no_cpu_times.json").string();
  write_compute_profile(old, {entries[1]}, "gpt-tiny", "cpu");
  const Scenario old_cores = with_devices("simulation: {compute_profile: " + old + ", host_cores: 2}\n");
  CHECK_THROWS_WITH(ComputeModel(old_cores), Contains("no_cpu_times.json: ops[0] has no cpu_median_s"));
}

}  // namespace compute_model_test
