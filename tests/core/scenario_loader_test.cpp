#include <catch2/catch.hpp>

#include <filesystem>

#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace scenario_loader_test {

using namespace geotrain;

namespace {
const std::string kSource = GEOTRAIN_SOURCE_DIR;
constexpr double kGbps = 1e9 / 8;

Scenario parse(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_scenario(text, "test.yaml", kSource + "/scenarios/examples", overrides);
}

const char* kSmall = R"(
devices: {count: 4, profile: A100}
network: {case: 5}
model: {preset: gpt-tiny}
strategy: {name: gpipe, stages: 2, replicas: 2}
)";
}  // namespace

TEST_CASE("the paper scenarios load as the reference describes", "[scenario]") {
  for (int c = 1; c <= 5; ++c) {
    const Scenario s = load_scenario(kSource + "/scenarios/paper/dtfm_case" + std::to_string(c) + ".yaml");
    CHECK(s.devices.size() == 64);
    CHECK(s.network.device_count() == 64);
    CHECK(s.model.preset == "gpt3-xl");
    CHECK(s.strategy.name == "gpipe");
    CHECK(s.strategy.integer("stages") == 8);
    CHECK(s.strategy.integer("replicas") == 8);
    CHECK(s.training.global_batch == Approx(1e6 / 2048));
    CHECK(s.scheduler.activation_bytes == Approx(0.4712e9));
    CHECK(s.network_source == "DT-FM case " + std::to_string(c));
  }
}

TEST_CASE("defaults are filled in and documented values parsed", "[scenario]") {
  const Scenario s = parse(kSmall);
  CHECK(s.name == "test");
  CHECK(s.strategy.text("schedule") == "gpipe");
  CHECK(s.strategy.text("dp_sync") == "allreduce");
  CHECK(s.placement.kind == PlacementKind::identity);
  CHECK(s.simulation.network_model == NetworkModel::flow);
  CHECK(s.tcp_buffer_bytes == 64.0 * 1024 * 1024);
  CHECK(s.profile_of(0).peak_fp16_flops == 312e12);
  CHECK(s.training.global_batch == 4);  // one sequence per device by default
}

TEST_CASE("set overrides replace any key before validation", "[scenario]") {
  const Scenario s = parse(kSmall, {"strategy.schedule=1f1b", "network.case=3", "training.steps=7",
                                    "emulation.bandwidth_scale=0.5"});
  CHECK(s.strategy.text("schedule") == "1f1b");
  CHECK(s.network_source == "DT-FM case 3");
  CHECK(s.training.steps == 7);
  CHECK(s.effective_network().bandwidth_Bps(0, 3) == Approx(0.5 * 1.12 * kGbps));
  CHECK_THROWS_AS(parse(kSmall, {"strategy.stages=3"}), ScenarioError);
  CHECK_THROWS_AS(parse(kSmall, {"no-equals-sign"}), ScenarioError);
}

TEST_CASE("regions model with city table and overrides", "[scenario]") {
  const Scenario s = parse(R"(
devices:
  groups:
    - {region: Oregon, count: 2}
    - {region: Sydney, count: 3, profile: H100}
network:
  regions:
    intra: {delay: 2ms, bandwidth: 10Gbps}
    pairs: [{between: [Sydney, Oregon], delay: 100ms, bandwidth: 1Gbps}]
model: {preset: gpt-tiny}
strategy: {name: ddp-allreduce}
)");
  CHECK(s.devices.size() == 5);
  CHECK(s.devices[4].profile == "H100");
  CHECK(s.network.delay_s(0, 1) == Approx(0.002));
  CHECK(s.network.delay_s(0, 4) == Approx(0.1));
  CHECK(s.network.bandwidth_Bps(4, 0) == Approx(1 * kGbps));
}

TEST_CASE("regions model fills missing pairs from DT-FM's table", "[scenario]") {
  const Scenario s = parse(R"(
devices: {count: 4, regions: [Sydney, London]}
network: {regions: {intra: {delay: 1ms, bandwidth: 5Gbps}}}
model: {preset: gpt-tiny}
strategy: {name: ddp-allreduce}
)");
  CHECK(s.network.delay_s(0, 3) == Approx(0.262));
  CHECK(s.network.bandwidth_Bps(0, 3) == Approx(0.326 * kGbps));
}

TEST_CASE("explicit matrix with CSV and multi-hop routes", "[scenario]") {
  const Scenario s = load_scenario(kSource + "/scenarios/examples/four_hosts_matrix.yaml");
  CHECK_FALSE(s.network.is_regional());
  CHECK(s.network.delay_s(0, 1) == Approx(0.010));
  CHECK(s.network.bandwidth_Bps(0, 2) == Approx(5 * kGbps));
  // 0 -> 3 has no direct link: 0 -> 1 -> 3 (10 + 5 ms), bottleneck 1 Gbit/s
  CHECK(s.network.delay_s(0, 3) == Approx(0.015));
  CHECK(s.network.bandwidth_Bps(0, 3) == Approx(1 * kGbps));
}

TEST_CASE("delays given as round-trip times are halved", "[scenario]") {
  const Scenario s = parse(std::string(kSmall) + "", {"network.delays_are=rtt"});
  // 4 devices of case 5: Oregon, Ohio, Seoul, Frankfurt; Oregon-Ohio is 49 ms
  CHECK(s.network.delay_s(0, 1) == Approx(0.049 / 2));
}

TEST_CASE("custom device profiles and overrides", "[scenario]") {
  const Scenario s = parse(R"(
devices:
  count: 3
  profile: my-gpu
  profiles:
    my-gpu: {fp32: 20TFLOPS, fp16: 80TFLOPS, memory: 24GiB, efficiency: 0.5}
  overrides:
    - {id: 2, profile: cpu, slowdown: 3}
network: {case: 3}
model: {preset: gpt-tiny}
strategy: {name: ddp-allreduce}
)");
  CHECK(s.profile_of(0).peak_fp16_flops == 80e12);
  CHECK(s.profile_of(0).efficiency == 0.5);
  CHECK(s.devices[2].profile == "cpu");
  CHECK(s.devices[2].slowdown == 3);
}

TEST_CASE("training batch forms", "[scenario]") {
  const Scenario tokens = parse(std::string(kSmall), {"training.global_batch_tokens=1024", "training.micro_batches=4"});
  CHECK(tokens.training.global_batch == 16);  // seq_len 64
  CHECK(tokens.training.micro_batches == 4);
  const Scenario sequences = parse(std::string(kSmall), {"training.global_batch=32", "training.micro_batch=8"});
  CHECK(sequences.training.micro_batch == 8);
}

}  // namespace scenario_loader_test
