// devices.profiles: a profile of the scenario's own figures, or a library device's (`like:`) with
// any figure overridden; library devices as profiles by name. Bad ones are pinned in
// tests/bad_scenarios/ (profile_like_unknown_device, profile_memory_bandwidth_out_of_range).
#include <catch2/catch.hpp>

#include <string>

#include "sim/scenario/device_library.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace devices_section_test {

using namespace geotrain;

namespace {

Scenario with_profiles(const std::string& devices) {
  const std::string text = devices +
                           "network: {case: 3}\n"
                           "model: {preset: gpt-tiny}\n"
                           "strategy: {name: ddp-allreduce}\n";
  return parse_scenario(text, "test.yaml", GEOTRAIN_SOURCE_DIR);
}

}  // namespace

TEST_CASE("devices.profiles like: a library device's figures, any of them overridden", "[scenario][devices]") {
  const Scenario s = with_profiles(R"(devices:
  count: 3
  profile: mine
  profiles:
    mine: {like: H200, efficiency: 0.31}
    tuned: {like: A100-40GB, fp32: 20TFLOPS, tf32: 150TFLOPS, bf16: 300TFLOPS, fp16: 310TFLOPS, memory: 39GiB,
            memory_bandwidth: 1500GBps}
  overrides: [{id: 2, profile: tuned}]
)");
  const DeviceProfile& mine = s.profile_of(0);
  const DeviceProfile& h200 = library_device("H200")->figures;
  CHECK(mine.name == "mine");
  CHECK(mine.peak_fp32_flops == h200.peak_fp32_flops);
  CHECK(mine.peak_tf32_flops == h200.peak_tf32_flops);
  CHECK(mine.peak_bf16_flops == h200.peak_bf16_flops);
  CHECK(mine.peak_fp16_flops == h200.peak_fp16_flops);
  CHECK(mine.memory_bytes == h200.memory_bytes);
  CHECK(mine.memory_bandwidth_Bps == h200.memory_bandwidth_Bps);
  CHECK(mine.efficiency == 0.31);
  const DeviceProfile& tuned = s.profile_of(2);
  CHECK(tuned.peak_fp32_flops == 20e12);
  CHECK(tuned.peak_tf32_flops == 150e12);
  CHECK(tuned.peak_bf16_flops == 300e12);
  CHECK(tuned.peak_fp16_flops == 310e12);
  CHECK(tuned.memory_bytes == 39.0 * 1024 * 1024 * 1024);
  CHECK(tuned.memory_bandwidth_Bps == 1500e9);
  CHECK(tuned.efficiency == 0.4);  // A100-40GB's
}

TEST_CASE("devices.profiles without like: fp32 and memory given, the rest derived as before", "[scenario][devices]") {
  const Scenario s = with_profiles(R"(devices:
  count: 2
  profile: plain
  profiles:
    plain: {fp32: 20TFLOPS, fp16: 80TFLOPS, memory: 24GiB}
    fast-memory: {fp32: 20TFLOPS, memory: 24GiB, memory_bandwidth: 1000GB/s}
  overrides: [{id: 1, profile: fast-memory}]
)");
  const DeviceProfile& plain = s.profile_of(0);
  CHECK(plain.peak_tf32_flops == 20e12);  // = fp32
  CHECK(plain.peak_fp16_flops == 80e12);
  CHECK(plain.peak_bf16_flops == 80e12);  // = fp16, as bf16 always computed before
  CHECK(plain.memory_bandwidth_Bps == 0);  // unknown: the compute model's 0.06 B/flop
  CHECK(plain.efficiency == 0.4);
  const DeviceProfile& fast = s.profile_of(1);
  CHECK(fast.peak_fp16_flops == 20e12);
  CHECK(fast.peak_bf16_flops == 20e12);
  CHECK(fast.memory_bandwidth_Bps == 1000e9);
}

TEST_CASE("devices: every library device is a profile by name", "[scenario][devices]") {
  for (const auto& name : library_device_names()) {
    INFO(name);
    const Scenario s = with_profiles("devices: {count: 2, profile: " + name + "}\n");
    CHECK(s.profile_of(1).peak_fp16_flops == library_device(name)->figures.peak_fp16_flops);
  }
}

}  // namespace devices_section_test
