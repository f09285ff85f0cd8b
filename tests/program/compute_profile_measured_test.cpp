// measured_at (geotrain profile's planned profiles): written and read back, checked against the
// scenario's model (one line naming what differs), every Compute op required by its own entry;
// a profile without it (the emulator's) keeps the nearest-entry fallback.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"
#include "sim/strategies/strategy_registry.hpp"
#include "sim/workload/compute_model.hpp"
#include "sim/workload/compute_ops.hpp"
#include "sim/workload/compute_profile.hpp"
#include "tests/support/remove_at_exit.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace compute_profile_measured_test {

using namespace geotrain;

namespace {

// Two V100s, data parallel, gpt-tiny, micro-batch `mb` of 8 sequences per replica.
Scenario ddp(const std::string& extra, int micro_batch = 4) {
  return test::scenario_with(2, "{name: ddp-allreduce}", "gpt-tiny",
                             fmt::format("training: {{global_batch: 16, micro_batch: {}}}\n{}", micro_batch, extra));
}

// A profile of `s`'s Program with every op at 1 ms, with or without measured_at.
std::string profile_of(const Scenario& s, const std::string& name, bool measured) {
  std::vector<ProfileSample> samples;
  for (const auto& ops : build_program(s).ranks)
    for (const auto& op : ops)
      if (const auto* c = op.as<ComputeOp>()) samples.push_back({*c, 0.001, 0.001, {}});
  const std::filesystem::path dir = test::process_temp_path("geotrain_profile_measured_test");
  std::filesystem::create_directories(dir);
  test::remove_at_exit(dir.string());
  ProfileMeasuredAt at = measured_at_of(s);
  at.device = "cpu", at.torch_threads = 1, at.torch = "1.13.1", at.host = "a CPU", at.date = "2026-11-28T00:00:00Z";
  const std::string path = (dir / name).string();
  write_compute_profile(path, summarize_samples(samples), "gpt-tiny", "cpu", nullptr, measured ? &at : nullptr);
  return path;
}

Scenario using_profile(const std::string& profile, const std::string& more = "", int micro_batch = 4) {
  return ddp("simulation: {compute_profile: " + profile + "}\n" + more, micro_batch);
}

std::string message_of(const Scenario& s) {
  try {
    ComputeModel(s).require_entries(build_program(s));
  } catch (const InputError& e) {
    return e.problems().empty() ? e.what() : e.problems().front();
  }
  return "";
}

}  // namespace

TEST_CASE("measured_at: written and read back while old profiles without it still load", "[program][compute]") {
  const Scenario s = ddp("");
  const auto planned = profile_of(s, "planned.json", true);
  const auto at = read_profile_measured_at(planned);
  REQUIRE(at);
  CHECK(at->d_model == 64);
  CHECK(at->layers == 4);
  CHECK(at->dtype == "fp32");
  CHECK(at->optimizer == "adam");
  CHECK(at->device == "cpu");
  CHECK(at->host == "a CPU");
  CHECK(measured_at_mismatch(*at, s).empty());
  const auto old = profile_of(s, "emulated.json", false);
  CHECK_FALSE(read_profile_measured_at(old));
  CHECK(message_of(using_profile(old)).empty());
  CHECK(message_of(using_profile(planned)).empty());
}

TEST_CASE("measured_at: another model is refused naming each difference", "[program][compute]") {
  const auto planned = profile_of(ddp(""), "planned.json", true);
  const Scenario wider = using_profile(planned, "", 4);
  Scenario changed = wider;
  changed.model.d_model = 128, changed.model.heads = 8;
  CHECK(measured_at_mismatch(*read_profile_measured_at(planned), changed) ==
        "d_model 64, the scenario has 128; heads 4, the scenario has 8");
  changed = wider;
  changed.training.optimizer = Optimizer::sgd;
  CHECK(measured_at_mismatch(*read_profile_measured_at(planned), changed) == "optimizer adam, the scenario has sgd");
  CHECK_THROWS_WITH(ComputeModel(changed), "simulation.compute_profile: " + planned +
                                               " was measured for optimizer adam, the scenario has sgd (expected a "
                                               "profile of this scenario's model: geotrain profile test.yaml)");
}

TEST_CASE("measured_at: an op without its own entry is refused while the emulator's profile scales", "[program][compute]") {
  const Scenario s = ddp("");
  const auto planned = profile_of(s, "planned.json", true);
  CHECK(message_of(using_profile(planned, "", 2)) ==
        "simulation.compute_profile: " + planned +
            " has no entry for forward of layers [0, 4) with 2 sequences and 1 more op(s) (it has: forward of "
            "layers [0, 4) with 4 sequences, backward of layers [0, 4) with 4 sequences, optimizer of layers [0, 4); "
            "expected a profile of this scenario's stages and micro-batches: geotrain profile test.yaml)");
  const auto old = profile_of(s, "emulated.json", false);
  const Scenario smaller = using_profile(old, "", 2);
  CHECK(message_of(smaller).empty());
  const ComputeOp f = forward_op(smaller.model, 0, 0, 0, 4, 2);
  CHECK(ComputeModel(smaller).seconds(f, 0) == Approx(0.0005));  // half the flop of the 4-sequence entry
}

TEST_CASE("measured_at: a malformed block is reported field by field", "[program][compute]") {
  const std::filesystem::path dir = test::process_temp_path("geotrain_profile_measured_bad");
  std::filesystem::create_directories(dir);
  test::remove_at_exit(dir.string());
  const std::string path = (dir / "bad.json").string();
  std::ofstream(path) << R"({"format": "geotrain-compute-profile", "version": 1, "ops": [],
    "measured_at": {"model": {"layers": 4, "d_model": "wide", "heads": 4, "seq_len": 64, "vocab": 256,
    "dtype": "fp32"}}})";
  try {
    read_profile_measured_at(path);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.problems() == std::vector<std::string>{
                              path + ": measured_at.model.d_model = \"wide\": expected an integer > 0",
                              path + ": measured_at.optimizer = missing: expected a string"});
  }
}

}  // namespace compute_profile_measured_test
