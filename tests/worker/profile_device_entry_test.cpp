// `geotrain profile --device-entry` end to end with a stand-in for geotrain-worker --profile that
// answers with prepared times (no LibTorch needed), so the efficiency is chosen, not measured:
// forward and backward at 2.5e10 flop/s give 0.25 of cpu's 1e11 peak in device_efficiency and
// in device_profile.yaml; at 1e15 flop/s the entry is refused (exit 1) and the profile is
// written without it, with no fragment. Bad --device-entry/--like exit 2 and write nothing.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "tests/support/profile_worker_stand_in.hpp"
#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace profile_device_entry_test {

namespace {

namespace fs = std::filesystem;

const std::string kGeotrain = GEOTRAIN_BINARY;
const std::string kRing2 = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml";

std::string fresh(const std::string& name) {
  const std::string dir = geotrain::test::process_temp_path(name);
  fs::create_directories(dir);
  return dir;
}

// A geotrain-worker stand-in in `dir`: it copies an answer that times every forward and
// backward op of ddp_ring_2 at `rate` flop/s (the optimizer at 1 ms) into its --out folder.
std::string fake_worker(const std::string& dir, double rate) {
  return geotrain::test::profile_worker_stand_in(
      dir, geotrain::build_program(geotrain::load_scenario(kRing2, {})), [rate](const geotrain::ComputeOp& op) {
        const bool counted = op.kind == geotrain::ComputeKind::forward || op.kind == geotrain::ComputeKind::backward;
        return counted ? op.flops / rate : 1e-3;
      });
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

}  // namespace

TEST_CASE("profile --device-entry: chosen times give their efficiency in the profile and the fragment",
          "[worker][profile][devices]") {
  const std::string dir = fresh("geotrain-device-entry");
  const std::string worker = fake_worker(dir, 2.5e10);
  const auto r = geotrain::test::sh(kGeotrain + " profile " + kRing2 + " --worker " + worker +
                                    " --device-entry this-cpu --like cpu --out " + dir + "/p.json");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("device entry this-cpu: 25 GFLOP/s on 2 forward/backward op(s) = efficiency 0.25 of cpu's "
                   "fp32 peak (100 GFLOP/s)\ndevice profile: " + dir + "/device_profile.yaml\n") != std::string::npos);
  const auto e = read_json(dir + "/p.json")["device_efficiency"];
  CHECK(e["profile"] == "this-cpu");
  CHECK(e["like"] == "cpu");
  CHECK(e["dtype"] == "fp32");
  CHECK(e["ops"] == 2);
  CHECK(e["achieved_flops"].get<double>() == Approx(2.5e10).epsilon(1e-12));
  CHECK(e["peak_flops"].get<double>() == 1e11);
  CHECK(e["efficiency"].get<double>() == Approx(0.25).epsilon(1e-12));
  std::ifstream in(dir + "/device_profile.yaml");
  const std::string fragment((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(fragment.find("for " + kRing2 + " (model dtype fp32)") != std::string::npos);
  CHECK(fragment.ends_with("\ndevices:\n  profiles:\n    this-cpu: {like: cpu, efficiency: 0.25}\n"));
}

TEST_CASE("profile --device-entry: an efficiency above 1 is refused, the profile kept without it",
          "[worker][profile][devices]") {
  const std::string dir = fresh("geotrain-device-entry-fast");
  const std::string worker = fake_worker(dir, 1e15);
  const auto r = geotrain::test::sh(kGeotrain + " profile " + kRing2 + " --worker " + worker +
                                    " --device-entry fast --out " + dir + "/p.json");
  INFO(r.out);
  CHECK(r.status == 1);
  CHECK(r.out ==
        "geotrain: error: geotrain profile: --device-entry fast: this device did 1e+15 flop/s on the forward and "
        "backward ops, 1e+04 x the fp32 peak of cpu (1e+11 flop/s): an efficiency is at most 1 (expected --like a "
        "library device whose fp32 peak is above that rate); the compute profile is written (" + dir +
        "/p.json), without device_efficiency, and no device_profile.yaml\n");
  REQUIRE(fs::exists(dir + "/p.json"));
  CHECK_FALSE(read_json(dir + "/p.json").contains("device_efficiency"));
  CHECK_FALSE(fs::exists(dir + "/device_profile.yaml"));
}

TEST_CASE("profile --device-entry: a bad name, library device or taken fragment exits 2 and writes nothing",
          "[worker][profile][devices]") {
  const std::string dir = fresh("geotrain-device-entry-bad");
  const std::string worker = fake_worker(dir, 2.5e10);
  const std::string run = kGeotrain + " profile " + kRing2 + " --worker " + worker + " --out " + dir + "/p.json ";
  const auto typo = geotrain::test::sh(run + "--device-entry x --like A10");
  CHECK(typo.status == 2);
  CHECK(typo.out == "geotrain profile: --like 'A10': not in the device library (known: A100, A100-40GB, A100-80GB, "
                    "H100, H200, L40S, MI300X, RTX4090, V100, cpu; did you mean 'A100'?)\n");
  const auto name = geotrain::test::sh(run + "--device-entry 'my gpu'");
  CHECK(name.status == 2);
  CHECK(name.out.rfind("geotrain profile: --device-entry 'my gpu': ", 0) == 0);
  const auto alone = geotrain::test::sh(run + "--like V100");
  CHECK(alone.status == 2);
  CHECK(alone.out.rfind("geotrain: --like requires --device-entry", 0) == 0);
  const auto custom = geotrain::test::sh(run +
                                         "--device-entry x --set 'devices.profiles={mine: {fp32: 1TFLOPS, memory: 1GiB}}' "
                                         "--set 'devices.groups=[{region: Virginia, count: 1, profile: mine}, "
                                         "{region: Ohio, count: 1, profile: cpu}]'");
  INFO(custom.out);
  CHECK(custom.status == 2);
  CHECK(custom.out == "geotrain profile: --device-entry: the scenario's first device has profile 'mine', which is "
                      "not in the device library (expected --like with one of: A100, A100-40GB, A100-80GB, H100, "
                      "H200, L40S, MI300X, RTX4090, V100, cpu)\n");
  CHECK_FALSE(fs::exists(dir + "/p.json"));
  std::ofstream(dir + "/device_profile.yaml") << "# another device's\n";
  const auto taken = geotrain::test::sh(run + "--device-entry x");
  CHECK(taken.status == 2);
  CHECK(taken.out == "geotrain profile: " + dir + "/device_profile.yaml: already exists (expected a folder without "
                     "one: --device-entry writes device_profile.yaml next to --out, never over another)\n");
  CHECK_FALSE(fs::exists(dir + "/p.json"));
}

}  // namespace profile_device_entry_test
