// Bandwidth changes planned for the emulator (emu/net/bandwidth_plan.hpp): timed `tc class
// change` on the classes make_plan() creates. No root: the plan reads nothing from the system.
#include <catch2/catch.hpp>

#include "emu/net/bandwidth_plan.hpp"
#include "emu/net/plan.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace bandwidth_plan_test {

using namespace geotrain;
using namespace geotrain::emu;

namespace {

const std::string kData = std::string(GEOTRAIN_SOURCE_DIR) + "/tests/emu/data/";
const ClusterLayout kLayout("golden", 3, Ipv4Subnet::parse("10.77.0.0/16"));

Scenario three_ranks(const std::string& changes) {
  return load_scenario(kData + "three_ranks.yaml", {"network.bandwidth_changes=" + changes});
}

}  // namespace

TEST_CASE("no bandwidth changes: nothing planned, nothing printed", "[plan][bandwidth]") {
  const auto plan = plan_bandwidth_changes(load_scenario(kData + "three_ranks.yaml"), kLayout);
  CHECK(plan.changes.empty());
  CHECK(plan.restore.empty());
  CHECK(format_bandwidth_plan(plan).empty());
}

TEST_CASE("a device's drop re-rates its classes and its peers' classes towards it", "[plan][bandwidth]") {
  const Scenario s = three_ranks("[{at: 2s, devices: [1], factor: 0.25}, {at: 5s, factor: 1}]");
  const Topology net = s.effective_network();
  const auto plan = plan_bandwidth_changes(s, kLayout);
  REQUIRE(plan.changes.size() == 8);  // 4 pairs touch device 1, then back to 1 at 5 s
  const std::vector<std::pair<int, int>> pairs = {{0, 1}, {1, 0}, {1, 2}, {2, 1}};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& c = plan.changes[i];
    CHECK(c.at_s == 2);
    CHECK(std::make_pair(c.src, c.dst) == pairs[i]);
    CHECK(c.rate_Bps == Approx(0.25 * net.bandwidth_Bps(c.src, c.dst)));
    // Exactly the class make_plan() added, re-rated.
    CHECK(c.command.to_string() ==
          htb_class(kLayout, "change", c.src, c.dst, 0.25 * net.bandwidth_Bps(c.src, c.dst)).to_string());
    CHECK(plan.changes[i + 4].at_s == 5);
    CHECK(plan.changes[i + 4].factor == 1);
  }
  CHECK(plan.changes[0].command.netns == "gt-golden-0");
  CHECK(plan.changes[1].command.netns == "gt-golden-1");
  REQUIRE(plan.restore.size() == 4);
  CHECK(plan.restore[0].to_string() == htb_class(kLayout, "change", 0, 1, net.bandwidth_Bps(0, 1)).to_string());
  const std::string text = format_bandwidth_plan(plan);
  CHECK(text.find("# at 2 s: 0->1 x0.25") != std::string::npos);
  CHECK(text.find("tc -n gt-golden-0 class change dev eth0 parent 1: classid 1:2 htb rate ") != std::string::npos);
}

TEST_CASE("the class command matches make_plan's add line but for the verb", "[plan][bandwidth]") {
  const Scenario s = load_scenario(kData + "three_ranks.yaml");
  const auto full = format_plan(make_plan(s, kLayout, {}));
  const std::string add = htb_class(kLayout, "add", 2, 0, s.effective_network().bandwidth_Bps(2, 0)).to_string();
  CHECK(full.find(add + "\n") != std::string::npos);
  std::string change = add;
  change.replace(change.find(" add "), 5, " change ");
  CHECK(htb_class(kLayout, "change", 2, 0, s.effective_network().bandwidth_Bps(2, 0)).to_string() == change);
}

}  // namespace bandwidth_plan_test
