// A device's measured efficiency against a library device (geotrain profile --device-entry),
// from a hand-made profile: achieved = sum of forward/backward flops / sum of their medians, the
// efficiency = achieved / the peak for the model dtype; the scenario fragment it writes, loaded
// back, gives those ops together exactly their measured time; an efficiency outside 1e-6 ... 1 is
// refused with the figures; profiles with and without device_efficiency load alike.
#include "sim/workload/device_efficiency.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/workload/compute_model.hpp"
#include "tests/support/remove_at_exit.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace device_efficiency_test {

using namespace geotrain;

namespace {

// gpt-tiny (4 layers) on one stage: a forward of 2 GFLOP in 0.1 s, its backward of 4 GFLOP in
// 0.3 s, and an optimizer step that does not count. Achieved: 6e9 / 0.4 = 1.5e10 flop/s.
const char* kHandMade = R"({"format": "geotrain-compute-profile", "version": 1, "model": "gpt-tiny",
  "device_profile": "cpu",
  "ops": [
    {"kind": "forward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 4, "flops": 2e9,
     "median_s": 0.1, "samples_s": [0.1]},
    {"kind": "backward", "stage": 0, "layer_begin": 0, "layer_end": 4, "sequences": 4, "flops": 4e9,
     "median_s": 0.3, "samples_s": [0.3]},
    {"kind": "optimizer", "stage": 0, "layer_begin": 0, "layer_end": 4, "flops": 1e8,
     "median_s": 0.05, "samples_s": [0.05]}]})";

Scenario tiny(const std::string& devices, const std::string& dtype = "fp32") {
  const std::string text = devices +
                           "network: {regions: {intra: {delay: 5ms, bandwidth: 2Gbps}}}\n"
                           "model: {preset: gpt-tiny, dtype: " + dtype + "}\n"
                           "strategy: {name: ddp-allreduce}\n";
  return parse_scenario(text, "test.yaml", test::kSource + "/scenarios/examples");
}

std::string hand_made_file(const std::string& name, const std::string& text) {
  const std::filesystem::path dir = test::process_temp_path("geotrain_device_efficiency_test");
  std::filesystem::create_directories(dir);  // removed at exit (process_temp_path)
  std::ofstream(dir / name) << text;
  return (dir / name).string();
}

std::vector<ProfileEntry> hand_made_entries() {
  const Scenario s = tiny("devices: {count: 2, profile: cpu, regions: [lab]}\n");
  return read_compute_profile(hand_made_file("hand_made.json", kHandMade), s);
}

ProfileMeasuredAt measured_here() {
  ProfileMeasuredAt at;
  at.device = "cpu";
  at.host = "Test CPU\n(two lines)";
  at.torch = "2.1.0";
  at.date = "2026-11-28T09:14:03Z";
  at.torch_threads = 1, at.repeat = 3, at.warmup = 1;
  return at;
}

}  // namespace

TEST_CASE("device efficiency: the forward and backward rate over the library peak of the dtype",
          "[program][compute][devices]") {
  const auto entries = hand_made_entries();
  const auto cpu = measure_device_efficiency(entries, "this-cpu", "cpu", DType::fp32);
  CHECK(cpu.profile == "this-cpu");
  CHECK(cpu.like == "cpu");
  CHECK(cpu.dtype == "fp32");
  CHECK(cpu.ops == 2);
  CHECK(cpu.achieved_flops == Approx(6e9 / 0.4).epsilon(1e-12));
  CHECK(cpu.peak_flops == 100e9);
  CHECK(cpu.efficiency == Approx(0.15).epsilon(1e-12));
  CHECK_FALSE(device_efficiency_problem(cpu));
  // The dtype picks the peak: A100 fp16 is the tensor-core 312 TFLOPS, V100 bf16 its fp32 peak.
  const auto a100 = measure_device_efficiency(entries, "x", "A100", DType::fp16);
  CHECK(a100.peak_flops == 312e12);
  CHECK(a100.efficiency == Approx(1.5e10 / 312e12).epsilon(1e-12));
  CHECK(measure_device_efficiency(entries, "x", "V100", DType::bf16).peak_flops == 15.7e12);
}

TEST_CASE("device efficiency: the fragment declares an entry that times the profiled ops as measured",
          "[program][compute][devices]") {
  const auto e = measure_device_efficiency(hand_made_entries(), "this-cpu", "V100", DType::fp32);
  const std::string fragment = device_profile_fragment(e, measured_here(), "scenarios/emu/ddp_ring_2.yaml");
  CHECK(fragment ==
        "# A device profile entry measured by `geotrain profile --device-entry` (docs/devices.md).\n"
        "# Measured 2026-11-28T09:14:03Z on cpu (host CPU: Test CPU\\u{000A}(two lines); LibTorch 2.1.0, 1 torch "
        "thread(s), 3 timed run(s) per op\n"
        "# after 1 warm-up), for scenarios/emu/ddp_ring_2.yaml (model dtype fp32).\n"
        "# 2 forward/backward op(s): 1.5e+10 flop/s achieved = 0.000955414 x the fp32 peak of V100 (1.57e+13 "
        "flop/s).\n"
        "# The efficiency is a share of the fp32 peak: use the entry in scenarios whose model dtype is fp32.\n"
        "# Merge into a scenario's devices: section, then name the profile (devices.profile, groups, overrides).\n"
        "devices:\n"
        "  profiles:\n"
        "    this-cpu: {like: V100, efficiency: 0.000955414}\n");
  // Loaded back: the two ops take together what they took when measured (0.1 + 0.3 s), to the
  // six digits the fragment keeps.
  const Scenario s = tiny(fragment + "  count: 2\n  profile: this-cpu\n  regions: [lab]\n");
  const ComputeModel model(s);
  ComputeOp forward, backward;
  forward.kind = ComputeKind::forward, forward.flops = 2e9;
  backward.kind = ComputeKind::backward, backward.flops = 4e9;
  CHECK(model.seconds(forward, 0) + model.seconds(backward, 0) == Approx(0.4).epsilon(1e-5));
}

TEST_CASE("device efficiency: an fp16 entry says the worker computed in fp32", "[program][compute][devices]") {
  const auto e = measure_device_efficiency(hand_made_entries(), "gpu", "H100", DType::fp16);
  const std::string fragment = device_profile_fragment(e, measured_here(), "s.yaml");
  CHECK(fragment.find("# geotrain-worker computes in fp32 whatever the dtype: this entry reproduces its times, "
                      "not\n# the card's own fp16 efficiency.\n") != std::string::npos);
}

TEST_CASE("device efficiency: above 1 or below 1e-6 is no entry, with the figures", "[program][compute][devices]") {
  auto e = measure_device_efficiency(hand_made_entries(), "x", "cpu", DType::fp32);
  e.achieved_flops = 1.8e11, e.efficiency = 1.8;
  CHECK(device_efficiency_problem(e) ==
        "this device did 1.8e+11 flop/s on the forward and backward ops, 1.8 x the fp32 peak of cpu (1e+11 "
        "flop/s): an efficiency is at most 1 (expected --like a library device whose fp32 peak is above that "
        "rate)");
  e.achieved_flops = 5e4, e.efficiency = 5e-7;
  CHECK(device_efficiency_problem(e) ==
        "this device did 5e+04 flop/s on the forward and backward ops, 5e-07 x the fp32 peak of cpu (1e+11 "
        "flop/s): below the smallest efficiency a scenario takes, 1e-06 (expected --like a library device whose "
        "fp32 peak is nearer that rate)");
}

TEST_CASE("device efficiency: an unknown library device or no forward/backward time is refused",
          "[program][compute][devices]") {
  CHECK_THROWS_AS(measure_device_efficiency(hand_made_entries(), "x", "A10", DType::fp32), InputError);
  std::vector<ProfileEntry> optimizer_only = hand_made_entries();
  optimizer_only.erase(optimizer_only.begin(), optimizer_only.begin() + 2);
  CHECK_THROWS_WITH(measure_device_efficiency(optimizer_only, "x", "cpu", DType::fp32),
                    "device entry x: the profile has no forward or backward op with flops and a time above 0 to "
                    "measure a rate from");
}

TEST_CASE("device efficiency: written into the profile, which loads with it as without it",
          "[program][compute][devices]") {
  const auto entries = hand_made_entries();
  const auto e = measure_device_efficiency(entries, "this-cpu", "cpu", DType::fp32);
  const std::string text = compute_profile_json(entries, "gpt-tiny", "cpu", nullptr, nullptr, &e);
  const auto doc = nlohmann::json::parse(text);
  CHECK(doc["device_efficiency"] == nlohmann::json({{"profile", "this-cpu"},
                                                    {"like", "cpu"},
                                                    {"dtype", "fp32"},
                                                    {"achieved_flops", e.achieved_flops},
                                                    {"peak_flops", 100e9},
                                                    {"efficiency", e.efficiency},
                                                    {"ops", 2}}));
  CHECK_FALSE(nlohmann::json::parse(compute_profile_json(entries, "gpt-tiny", "cpu")).contains("device_efficiency"));
  const Scenario s = tiny("devices: {count: 2, profile: cpu, regions: [lab]}\n");
  CHECK(read_compute_profile(hand_made_file("with.json", text), s).size() == 3);
  CHECK(read_compute_profile(hand_made_file("without.json", kHandMade), s).size() == 3);
}

}  // namespace device_efficiency_test
