// simulation.platform against closed forms: rank 0 sends S bytes to each of three peers at once
// in one region of delay L and bandwidth B. On `pairs` each send has its own link: L + S / B.
// On `regions` the three share rank 0's NIC (max-min, equal route latencies): L + 3 S / B. The
// 256-device rule picks `pairs` here; the scenario key overrides it either way.
#include <catch2/catch.hpp>

#include "sim/engine/platform.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace platform_choice_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kLatency = 0.01, kBandwidth = 1e8, kBytes = 4e6;

Program fan_out() {
  Program p = empty_program(4);
  auto& root = p.ranks[0];
  for (int peer = 1; peer < 4; ++peer) root.push_back(send(peer, kBytes, 7, true));
  root.push_back(wait({0, 1, 2}));
  for (int peer = 1; peer < 4; ++peer) p.ranks[static_cast<std::size_t>(peer)].push_back(recv(0, kBytes, 7));
  return p;
}

double makespan(PlatformChoice choice) {
  Scenario s = one_region_scenario(4, kLatency, kBandwidth);
  s.simulation.platform = choice;
  const auto r = simulate_in_child(s, fan_out(), {}, tflop_seconds());
  INFO(r.error);
  REQUIRE(r.ok);
  return r.makespan();
}

}  // namespace

TEST_CASE("simulation.platform: pairs gives every send its own link, regions one shared NIC",
          "[sim][closed-form][platform]") {
  CHECK(engine::choose_platform(one_region_scenario(4, kLatency, kBandwidth).network, {}) == engine::PlatformKind::pairs);
  CHECK(makespan(PlatformChoice::automatic) == Approx(kLatency + kBytes / kBandwidth).epsilon(1e-6));
  CHECK(makespan(PlatformChoice::pairs) == Approx(kLatency + kBytes / kBandwidth).epsilon(1e-6));
  CHECK(makespan(PlatformChoice::regions) == Approx(kLatency + 3 * kBytes / kBandwidth).epsilon(1e-6));
}

}  // namespace platform_choice_test
