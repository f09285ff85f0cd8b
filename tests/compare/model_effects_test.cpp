// The simulator's stack effects (simulation.rendezvous, simulation.payload_efficiency) against
// closed forms, on a 2-rank ring all-reduce between Virginia and Ohio (11 ms one-way,
// 1.12 Gbit/s x 0.05). Each simulation runs as a `geotrain simulate` child process.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "run_files.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace model_effects_test {

using namespace geotrain;

namespace {

nlohmann::json simulate(const std::string& dir, const std::string& name, const std::string& sets) {
  std::string out;
  const std::string args = "simulate " GEOTRAIN_SOURCE_DIR "/scenarios/emu/ddp_ring_2.yaml --iterations 1 --no-trace --out " +
                           dir + "/" + name + " " + sets;
  INFO(out);
  REQUIRE(test::run_geotrain(args, out) == 0);
  return nlohmann::json::parse(std::ifstream(dir + "/" + name + "/summary.json"));
}

}  // namespace

TEST_CASE("rendezvous adds one one-way delay per ring step, payload efficiency divides the rate", "[compare]") {
  const auto dir = test::temp_dir("effects");
  const auto base = simulate(dir, "base", "");
  const auto rdv = simulate(dir, "rdv", "--set simulation.rendezvous=true");
  const double eff = 1448.0 / 1514.0;
  const auto pay = simulate(dir, "pay", "--set simulation.payload_efficiency=" + std::to_string(eff));
  const double t0 = base["iteration_time_s"].get<double>();
  // N = 2: 2(N-1) = 2 ring steps, each waiting for the receiver's notice (11 ms).
  CHECK(rdv["iteration_time_s"].get<double>() - t0 == Approx(2 * 0.011).epsilon(1e-6));
  // Each rank sends S per iteration (two steps of S/2); the bandwidth term S/B grows by 1/eff.
  const double bytes_per_rank = base["bytes"]["collectives"].get<double>() / 2;
  const double rate_Bps = 1.12e9 / 8 * 0.05;
  CHECK(bytes_per_rank > 0);
  CHECK(pay["iteration_time_s"].get<double>() - t0 ==
        Approx(bytes_per_rank / rate_Bps * (1 / eff - 1)).epsilon(1e-4));
}

}  // namespace model_effects_test
