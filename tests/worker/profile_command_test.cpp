// `geotrain profile` with the real CPU worker (no root, no network): the profile of ddp_ring_2 has
// an entry for every Compute op of its Program with the asked number of samples, loads in
// `simulate` of the same scenario and of one with another network, and is refused (pinned
// messages) for another d_model or micro-batch; --concurrent 2 pools two workers' samples; with
// --device-entry the profile carries the forward/backward rate against a library device's peak
// and a fragment a scenario loads. Bad flags, a device this build has not and a model too large
// for the host's memory exit 2 and write nothing. Judges files and messages, never time.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <tuple>

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace profile_command_test {

namespace {

const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenario = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = geotrain::test::process_temp_path(name);
  std::filesystem::create_directories(dir);
  return dir;
}

// What the simulator and the profile key an op by: kind, stage, layer range, sequences.
using OpKey = std::tuple<std::string, int, int, int, double>;

std::set<OpKey> program_ops(const std::string& scenario) {
  const auto s = geotrain::load_scenario(scenario, {});
  const auto program = geotrain::build_program(s);
  std::set<OpKey> keys;
  for (const auto& ops : program.ranks)
    for (const auto& op : ops)
      if (const auto* c = op.as<geotrain::ComputeOp>())
        keys.insert({geotrain::to_string(c->kind), c->stage, c->layer_begin, c->layer_end, c->sequences});
  return keys;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

TEST_CASE("profile: every Compute op of ddp_ring_2 with 3 samples and simulate uses it for any scenario of its shapes",
          "[worker][profile]") {
  const std::string dir = fresh_dir("geotrain-profile-cmd");
  geotrain::test::remove_at_exit(dir);
  const std::string profile = dir + "/cpu.json";
  // Catch runs this body once per SECTION: the profile is made (and judged) by the first run.
  static bool made = false;
  if (!made) {
    made = true;
    const auto r = geotrain::test::sh(kBin + " profile " + kScenario + " --repeat 3 --warmup 1 --out " + profile + " 2>&1");
    INFO(r.out);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("stage 0 (rank 0, layers [0, 4))") != std::string::npos);  // a progress line per stage
    CHECK(r.out.find("profile: " + profile) != std::string::npos);

    const auto doc = read_json(profile);
    CHECK(doc["format"] == "geotrain-compute-profile");
    CHECK(doc["version"] == 1);
    std::set<OpKey> entries;
    for (const auto& e : doc["ops"]) {
      entries.insert({e["kind"].get<std::string>(), e["stage"].get<int>(), e["layer_begin"].get<int>(),
                      e["layer_end"].get<int>(), e["sequences"].get<double>()});
      CHECK(e["samples_s"].size() == 3);
      CHECK(e["cpu_samples_s"].size() == 3);
      CHECK(e["median_s"].get<double>() >= 0);
      CHECK(e.contains("cpu_median_s"));
    }
    CHECK(entries.size() == doc["ops"].size());
    CHECK(entries == program_ops(kScenario));
    const auto& at = doc["measured_at"];
    CHECK(at["by"] == "geotrain profile");
    CHECK(at["model"] == nlohmann::json({{"layers", 4}, {"d_model", 64}, {"heads", 4}, {"seq_len", 64},
                                          {"vocab", 256}, {"dtype", "fp32"}}));
    CHECK(at["optimizer"] == "adam");
    CHECK(at["device"] == "cpu");
    CHECK(at["torch_threads"] == 1);
    CHECK(at["repeat"] == 3);
    CHECK(at["warmup"] == 1);
    CHECK_FALSE(at["torch"].get<std::string>().empty());
    CHECK_FALSE(at["host"].get<std::string>().empty());
    CHECK(at["date"].get<std::string>().size() == 20);  // 2026-11-28T09:14:03Z
  }

  const std::string use = " --set simulation.compute_profile=" + profile;
  SECTION("simulate of the same scenario sampled and of one with another network") {
    const auto same = geotrain::test::sh(kBin + " simulate " + kScenario + use +
                                         " --set simulation.compute_variance=sampled --no-trace --out " + dir +
                                         "/same 2>&1");
    INFO(same.out);
    CHECK(same.status == 0);
    const auto other = geotrain::test::sh(kBin + " simulate " + kScenario + use +
                                          " --set 'network.regions.pairs=[{between: [Virginia, Ohio], delay: 40ms, "
                                          "bandwidth: 100Mbps}]' --no-trace --out " + dir + "/other 2>&1");
    INFO(other.out);
    CHECK(other.status == 0);
    // The same compute, a slower network: the iteration takes longer.
    CHECK(read_json(dir + "/other/summary.json")["iteration_time_s"].get<double>() >
          read_json(dir + "/same/summary.json")["iteration_time_s"].get<double>());
  }
  SECTION("refused for another d_model naming what differs") {
    const auto bad = geotrain::test::sh(kBin + " simulate " + kScenario + use +
                                        " --set model.d_model=128 --no-trace --out " + dir + "/d128 2>&1");
    CHECK(bad.status == 2);
    CHECK(bad.out == "simulation.compute_profile: " + profile +
                         " was measured for d_model 64, the scenario has 128 (expected a profile of this scenario's "
                         "model: geotrain profile " + kScenario + ")\n");
    CHECK_FALSE(std::filesystem::exists(dir + "/d128"));
  }
  SECTION("refused for another micro-batch naming the op it has no entry for") {
    const auto bad = geotrain::test::sh(kBin + " simulate " + kScenario + use +
                                        " --set training.micro_batch=2 --no-trace --out " + dir + "/mb2 2>&1");
    CHECK(bad.status == 2);
    CHECK(bad.out == "simulation.compute_profile: " + profile +
                         " has no entry for forward of layers [0, 4) with 2 sequences and 1 more op(s) (it has: "
                         "forward of layers [0, 4) with 4 sequences, backward of layers [0, 4) with 4 sequences, "
                         "optimizer of layers [0, 4); expected a profile of this scenario's stages and "
                         "micro-batches: geotrain profile " + kScenario + ")\n");
    CHECK_FALSE(std::filesystem::exists(dir + "/mb2"));
  }
}

TEST_CASE("profile --min-seconds: rounds go on past --repeat, every op of the stage timed as often",
          "[worker][profile]") {
  const std::string dir = fresh_dir("geotrain-profile-min-seconds");
  geotrain::test::remove_at_exit(dir);
  const std::string profile = dir + "/cpu.json";
  // Two rounds asked, half a second of rounds required: the ops are timed in rounds (interleaved),
  // so every op has the same count, at least 2; the stage took at least the half second (on a host
  // fast enough to do two rounds in less, only because the rounds went on); the request is kept.
  const auto r = geotrain::test::sh(kBin + " profile " + kScenario + " --repeat 2 --warmup 0 --min-seconds 0.5 --out " +
                                    profile + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("timed round(s) (at least 0.5 s) each, the ops of a stage interleaved") != std::string::npos);
  const auto doc = read_json(profile);
  REQUIRE(doc["ops"].size() == 3);
  const auto count = doc["ops"][0]["samples_s"].size();
  CHECK(count >= 2);
  for (const auto& e : doc["ops"]) CHECK(e["samples_s"].size() == count);
  // The stage's progress line: its rounds stopped only once they had taken the half second.
  const auto at = r.out.find(" runs in ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(r.out.substr(at + 9)) >= 0.5);
  CHECK(doc["measured_at"]["min_seconds"].get<double>() == Approx(0.5));
  CHECK(doc["measured_at"]["repeat"] == 2);
}

TEST_CASE("profile --concurrent 2: two real workers time every op at once, their samples pooled",
          "[worker][profile]") {
  const std::string dir = fresh_dir("geotrain-profile-concurrent");
  geotrain::test::remove_at_exit(dir);
  const std::string profile = dir + "/cpu.json";
  const auto r = geotrain::test::sh(kBin + " profile " + kScenario + " --repeat 3 --warmup 0 --concurrent 2 --out " +
                                    profile + " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  // One worker's progress lines on the terminal, not two interleaved.
  const auto first = r.out.find("stage 0 (rank 0, layers [0, 4))");
  REQUIRE(first != std::string::npos);
  CHECK(r.out.find("stage 0 (rank 0, layers [0, 4))", first + 1) == std::string::npos);
  const auto doc = read_json(profile);
  REQUIRE(doc["ops"].size() == 3);
  for (const auto& e : doc["ops"]) {
    CHECK(e["samples_s"].size() == 6);  // 3 of each worker
    CHECK(e["cpu_samples_s"].size() == 6);
  }
  CHECK(doc["measured_at"]["concurrent"] == 2);
  CHECK(doc["measured_at"]["repeat"] == 3);
}

TEST_CASE("profile --device-entry: the real worker's forward/backward rate against V100's peak, as a loadable entry",
          "[worker][profile][devices]") {
  const std::string dir = fresh_dir("geotrain-profile-device-entry");
  geotrain::test::remove_at_exit(dir);
  const auto r = geotrain::test::sh(kBin + " profile " + kScenario + " --repeat 2 --warmup 0 --device-entry this-cpu " +
                                    "--like V100 --out " + dir + "/p.json 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("device entry this-cpu: ") != std::string::npos);
  CHECK(r.out.find("device profile: " + dir + "/device_profile.yaml\n") != std::string::npos);
  // The closed form over the file's own entries: sum of flops / sum of medians of forward and backward.
  const auto doc = read_json(dir + "/p.json");
  double flops = 0, seconds = 0;
  for (const auto& e : doc["ops"])
    if (e["kind"] == "forward" || e["kind"] == "backward")
      flops += e["flops"].get<double>(), seconds += e["median_s"].get<double>();
  const auto& de = doc["device_efficiency"];
  CHECK(de["profile"] == "this-cpu");
  CHECK(de["like"] == "V100");
  CHECK(de["dtype"] == "fp32");
  CHECK(de["ops"] == 2);
  CHECK(de["peak_flops"].get<double>() == 15.7e12);
  CHECK(de["achieved_flops"].get<double>() == Approx(flops / seconds).epsilon(1e-12));
  CHECK(de["efficiency"].get<double>() == Approx(flops / seconds / 15.7e12).epsilon(1e-12));
  // The fragment, completed with a device count, is a devices section a scenario loads.
  std::ifstream in(dir + "/device_profile.yaml");
  const std::string fragment((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto s = geotrain::parse_scenario(fragment + "  count: 2\n  profile: this-cpu\n"
                                          "network: {case: 3}\nmodel: {preset: gpt-tiny}\nstrategy: {name: ddp-allreduce}\n",
                                          "fragment.yaml", dir);
  CHECK(s.profile_of(1).efficiency == Approx(de["efficiency"].get<double>()).epsilon(1e-5));
  CHECK(s.profile_of(1).peak_fp32_flops == 15.7e12);
}

TEST_CASE("profile: bad flags or a missing scenario or an existing --out or an unknown device exit 2 and write nothing",
          "[worker][profile]") {
  const std::string dir = fresh_dir("geotrain-profile-bad");
  geotrain::test::remove_at_exit(dir);
  const std::string out = " --out " + dir + "/p.json";
  for (const std::string flags :
       {" --device tpu", " --repeat 0", " --threads 0", " --warmup -1", " --concurrent 0", " --bogus 1"}) {
    const auto r = geotrain::test::sh(kBin + " profile " + kScenario + flags + out + " 2>&1");
    INFO(flags << ": " << r.out);
    CHECK(r.status == 2);
    CHECK(r.out.find("geotrain: ") == 0);
  }
  const auto missing = geotrain::test::sh(kBin + " profile " + dir + "/none.yaml" + out + " 2>&1");
  CHECK(missing.status == 2);
  CHECK_FALSE(std::filesystem::exists(dir + "/p.json"));
  std::ofstream(dir + "/taken.json") << "{}";
  const auto taken = geotrain::test::sh(kBin + " profile " + kScenario + " --out " + dir + "/taken.json 2>&1");
  CHECK(taken.status == 2);
  CHECK(taken.out == "geotrain profile: --out " + dir + "/taken.json: already exists (expected a new file: a "
                         "profile is never overwritten)\n");
}

TEST_CASE("profile: a model too large for the host's memory is refused with both figures", "[worker][profile]") {
  const std::string dir = fresh_dir("geotrain-profile-memory");
  geotrain::test::remove_at_exit(dir);
  // seq_len 2^20: the attention scores alone are terabytes per sequence.
  const auto r = geotrain::test::sh(kBin + " profile " + kScenario + " --set model.seq_len=1048576 --out " + dir +
                                    "/p.json 2>&1");
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(first_line(r.out).find("geotrain profile: stage 0 (layers [0, 4)) needs about ") == 0);
  CHECK(r.out.find("GiB are available (MemAvailable, /proc/meminfo") != std::string::npos);
  CHECK(r.out.find('\n') == r.out.size() - 1);  // one line
  CHECK_FALSE(std::filesystem::exists(dir + "/p.json"));
}

TEST_CASE("profile --device cuda on a worker without CUDA: exit 2 with the worker's reason", "[worker][profile]") {
  const auto caps = geotrain::test::sh(std::string(GEOTRAIN_WORKER_BINARY) + " --capabilities");
  REQUIRE(caps.status == 0);
  if (nlohmann::json::parse(caps.out).value("cuda", false)) {
    WARN("this geotrain-worker has CUDA: the CPU-only refusal cannot be seen here");
    return;
  }
  const std::string dir = fresh_dir("geotrain-profile-cuda");
  geotrain::test::remove_at_exit(dir);
  const auto r = geotrain::test::sh(kBin + " profile " + kScenario + " --device cuda --out " + dir + "/p.json 2>&1");
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(r.out.find("geotrain-worker: error: --device cuda: this geotrain-worker was built with LibTorch") !=
        std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/p.json"));
}

}  // namespace profile_command_test
