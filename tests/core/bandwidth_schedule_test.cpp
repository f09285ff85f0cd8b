// network.bandwidth_changes: parsing and the one resolution both executors apply
// (sim/topology/bandwidth_schedule.hpp). Error messages are pinned in tests/bad_scenarios/.
#include <catch2/catch.hpp>

#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/scenario_bandwidth.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace bandwidth_schedule_test {

using namespace geotrain;

namespace {

// DT-FM case 5 with 8 devices: one per city, device i in city i.
Scenario case5(const std::string& changes, const std::vector<std::string>& overrides = {}) {
  const std::string text = "devices: {count: 8}\nnetwork:\n  case: 5\n  bandwidth_changes:\n" + changes +
                           "model: {preset: gpt-tiny}\nstrategy: {name: ddp-allreduce}\n";
  return parse_scenario(text, "test.yaml", GEOTRAIN_SOURCE_DIR, overrides);
}

int region(const Scenario& s, const std::string& name) {
  const auto& names = s.network.region_names();
  return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
}

}  // namespace

TEST_CASE("bandwidth changes parse into typed entries", "[scenario][bandwidth]") {
  const Scenario s = case5(
      "    - {at: 20s, factor: 0.25}\n"
      "    - {at: 1.5s, between: [Oregon, Tokyo], factor: 0.5}\n"
      "    - {at: 40000ms, devices: [4, 3, 4], factor: 2}\n");
  REQUIRE(s.bandwidth_changes.size() == 3);
  CHECK(s.bandwidth_changes[0].at_s == 20);
  CHECK(s.bandwidth_changes[0].select.scope == BandwidthSelector::Scope::all);
  CHECK(s.bandwidth_changes[1].at_s == 1.5);
  CHECK(s.bandwidth_changes[1].select.scope == BandwidthSelector::Scope::regions);
  CHECK(s.bandwidth_changes[1].select.region_a == region(s, "Oregon"));
  CHECK(s.bandwidth_changes[1].select.region_b == region(s, "Tokyo"));
  CHECK(s.bandwidth_changes[2].at_s == 40);
  CHECK(s.bandwidth_changes[2].select.devices == std::vector<int>{3, 4});
  CHECK(s.bandwidth_changes[2].line == 7);
}

TEST_CASE("the schedule sorts by time, keeps file order at one time, later entries win",
          "[scenario][bandwidth]") {
  const Scenario s = case5(
      "    - {at: 60s, factor: 1}\n"
      "    - {at: 20s, factor: 0.25}\n"
      "    - {at: 20s, devices: [3], factor: 0.5}\n"
      "    - {at: 40s, devices: [3, 4], factor: 0.1}\n");
  const BandwidthSchedule b = resolve_bandwidth_schedule(s);
  REQUIRE(b.steps().size() == 4);
  CHECK(b.steps()[0].at_s == 20);
  CHECK(b.steps()[0].factor == 0.25);
  CHECK(b.steps()[1].factor == 0.5);
  CHECK(b.steps()[3].at_s == 60);
  // Pair 0->1: only the "every link" entries touch it.
  CHECK(b.pair_timeline(0, 1) == std::vector<DatedFactor>{{20, 0.25}, {60, 1}});
  // Pair 3->0: the later entry at 20 s wins; 40 s selects it again.
  CHECK(b.pair_timeline(3, 0) == std::vector<DatedFactor>{{20, 0.5}, {40, 0.1}, {60, 1}});
  CHECK(b.pair_timeline(0, 4) == std::vector<DatedFactor>{{20, 0.25}, {40, 0.1}, {60, 1}});
  // Every ordered pair among 0, 3: six changes, ordered by time then pair.
  const auto changes = b.pair_changes({0, 3});
  CHECK(changes == std::vector<PairChange>{{20, 0, 3, 0.5}, {20, 3, 0, 0.5}, {40, 0, 3, 0.1},
                                           {40, 3, 0, 0.1}, {60, 0, 3, 1}, {60, 3, 0, 1}});
  CHECK(b.describe()[0] == "20 s: every link x0.25 (line 6)");
  CHECK(b.describe()[1] == "20 s: devices 3 x0.5 (line 7)");
}

TEST_CASE("a region pair selects both directions and nothing else", "[scenario][bandwidth]") {
  const Scenario s = case5("    - {at: 10s, between: [Oregon, Tokyo], factor: 0.5}\n");
  const BandwidthSchedule b = resolve_bandwidth_schedule(s);
  const int oregon = region(s, "Oregon"), tokyo = region(s, "Tokyo");
  int selected = 0;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      if (i == j) continue;
      const bool pair = (s.network.region_of(i) == oregon && s.network.region_of(j) == tokyo) ||
                        (s.network.region_of(i) == tokyo && s.network.region_of(j) == oregon);
      CHECK(b.pair_timeline(i, j).empty() == !pair);
      selected += pair;
    }
  CHECK(selected == 2);
  CHECK(b.describe()[0] == "10 s: Oregon <-> Tokyo x0.5 (line 5)");
}

TEST_CASE("a change back to the current factor is no change, no entries, no steps", "[scenario][bandwidth]") {
  const BandwidthSchedule b = resolve_bandwidth_schedule(case5("    - {at: 10s, factor: 1}\n"));
  CHECK(b.pair_changes().empty());
  const Scenario none = case5("    []\n");
  CHECK(resolve_bandwidth_schedule(none).empty());
}

TEST_CASE("a seeded schedule is a pure function of the scenario", "[scenario][bandwidth]") {
  const std::string entry = "    - {every: 10s, until: 35s, factor_min: 0.3, factor_max: 1, seed: 7}\n";
  const BandwidthSchedule a = resolve_bandwidth_schedule(case5(entry));
  const BandwidthSchedule b = resolve_bandwidth_schedule(case5(entry));
  REQUIRE(a.steps().size() == 5);  // 0, 10, 20, 30 s drawn; 35 s back to 1
  for (std::size_t i = 0; i < a.steps().size(); ++i) {
    CHECK(a.steps()[i].at_s == b.steps()[i].at_s);
    CHECK(a.steps()[i].factor == b.steps()[i].factor);  // bit for bit
  }
  for (int k = 0; k < 4; ++k) {
    CHECK(a.steps()[static_cast<std::size_t>(k)].at_s == 10.0 * k);
    CHECK(a.steps()[static_cast<std::size_t>(k)].factor >= 0.3);
    CHECK(a.steps()[static_cast<std::size_t>(k)].factor <= 1.0);
    CHECK(a.steps()[static_cast<std::size_t>(k)].drawn);
  }
  CHECK(a.steps()[4].at_s == 35);
  CHECK(a.steps()[4].factor == 1);
  // Another seed, other draws; the scenario's seed is the default.
  const BandwidthSchedule c = resolve_bandwidth_schedule(
      case5("    - {every: 10s, until: 35s, factor_min: 0.3, factor_max: 1, seed: 8}\n"));
  CHECK(c.steps()[0].factor != a.steps()[0].factor);
  const Scenario seeded = case5("    - {every: 10s, until: 35s, factor_min: 0.3, factor_max: 1}\n", {"seed=7"});
  CHECK(seeded.bandwidth_changes[0].seed == 7);
}

}  // namespace bandwidth_schedule_test
