// The planner against golden command lists (no root: the plan reads nothing from the system).
// Regenerate after an intended change: GEOTRAIN_UPDATE_GOLDEN=1 test_emu "[plan]"; review the diff.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "emu/net/plan.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace plan_test {

using namespace geotrain;
using namespace geotrain::emu;

namespace {

const std::string kDir = std::string(GEOTRAIN_SOURCE_DIR) + "/tests/emu/";

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_golden(const std::string& text, const std::string& name) {
  const std::string path = kDir + "golden/" + name;
  if (std::getenv("GEOTRAIN_UPDATE_GOLDEN") != nullptr) std::ofstream(path) << text;
  CHECK(text == read(path));
}

Plan plan_for(const std::string& scenario, Backend backend, int ranks) {
  const Scenario s = load_scenario(kDir + "data/" + scenario);
  PlanOptions o;
  o.backend = backend;
  return make_plan(s, ClusterLayout("golden", ranks, Ipv4Subnet::parse("10.77.0.0/16")), o);
}

}  // namespace

TEST_CASE("nfqueue plan of three ranks matches the golden list", "[plan]") {
  check_golden(format_plan(plan_for("three_ranks.yaml", Backend::nfqueue, 3)), "three_ranks_nfqueue.txt");
}

TEST_CASE("netem plan of three ranks matches the golden list", "[plan]") {
  check_golden(format_plan(plan_for("three_ranks.yaml", Backend::netem, 3)), "three_ranks_netem.txt");
}

TEST_CASE("plans apply the emulation scales to every link", "[plan]") {
  // three_ranks: 0->2 is 2 Gbit/s and 20 ms; bandwidth_scale 0.5, delay_scale 2.
  const Plan p = plan_for("three_ranks.yaml", Backend::nfqueue, 3);
  const std::string text = format_plan(p);
  CHECK(text.find("tc -n gt-golden-0 class add dev eth0 parent 1: classid 1:3 htb rate 1000000000bit") != std::string::npos);
  CHECK(text.find("--tag gt-golden-2 --queue 0:40000000 --queue 1:60000000") != std::string::npos);
}

TEST_CASE("every step that creates a namespace or a delayer has an undo", "[plan]") {
  const Plan p = plan_for("three_ranks.yaml", Backend::nfqueue, 3);
  int namespaces = 0, delayers = 0;
  for (const auto& step : p.steps) {
    if (step.action.tool == Tool::ip && step.action.args.size() == 3 && step.action.args[1] == "add") {
      REQUIRE(step.undo);
      CHECK(step.undo->to_string() == "ip netns del " + step.action.args[2]);
      ++namespaces;
    }
    if (step.action.tool == Tool::delayer) {
      REQUIRE(step.undo);
      CHECK(step.undo->tool == Tool::stop_delayer);
      ++delayers;
    }
  }
  CHECK(namespaces == 4);  // three ranks and the hub
  CHECK(delayers == 3);
}

TEST_CASE("HTB burst is 1 ms of the rate and at least two frames", "[plan]") {
  CHECK(htb_burst_bytes(7e6) == Approx(7e3));      // 56 Mbit/s: 1 ms, not a 64 KB GSO packet
  CHECK(htb_burst_bytes(250e6) == Approx(250e3));  // 2 Gbit/s: 1 ms of the rate
  CHECK(htb_burst_bytes(125e3) == Approx(3028));   // 1 Mbit/s: two 1514-byte frames
}

TEST_CASE("a plan whose buffer is below twice the bandwidth-delay product says so", "[plan]") {
  // 262 ms one way at 0.326 Gbit/s needs ~43 MB; three_ranks' 32 MiB is enough for its links.
  CHECK(plan_for("three_ranks.yaml", Backend::nfqueue, 3).notes.empty());
  const Scenario s = load_scenario(std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/pair_262ms_0326gbps.yaml",
                                   {"network.tcp_buffer=16MiB"});
  const Plan p = make_plan(s, ClusterLayout("golden", 2, Ipv4Subnet::parse("10.77.0.0/16")), PlanOptions{});
  REQUIRE(p.notes.size() == 1);
  CHECK(p.notes[0] == "network.tcp_buffer 16.78 MB is below 2 x bandwidth x RTT of link 0->1 (42.71 MB): "
                      "one TCP flow cannot fill that link");
}

TEST_CASE("a cluster whose rank count differs from the scenario is refused", "[plan]") {
  const Scenario s = load_scenario(kDir + "data/three_ranks.yaml");
  CHECK_THROWS_AS(make_plan(s, ClusterLayout("golden", 4, Ipv4Subnet::parse("10.77.0.0/16")), PlanOptions{}),
                  InputError);
}

TEST_CASE("ICMP is delayed at the sender's egress, everything else at the receiver's ingress", "[plan]") {
  // three_ranks: 0->2 is 20 ms x delay_scale 2; ping's receive timestamp is taken before the
  // INPUT chain, so ICMP must carry its delay before it leaves (docs/emulated-network.md).
  const std::string text = format_plan(plan_for("three_ranks.yaml", Backend::nfqueue, 3));
  CHECK(text.find("ip netns exec gt-golden-2 iptables -w -A INPUT -s 10.77.0.1/32 ! -p icmp -j NFQUEUE "
                  "--queue-num 0\n") != std::string::npos);
  CHECK(text.find("ip netns exec gt-golden-0 iptables -w -A OUTPUT -d 10.77.0.3/32 -p icmp -j NFQUEUE "
                  "--queue-num 32770\n") != std::string::npos);
  CHECK(text.find("--tag gt-golden-0 --queue 1:") != std::string::npos);
  CHECK(text.find(" --queue 32770:40000000 ") != std::string::npos);
}

TEST_CASE("the nfqueue backend refuses more ranks than it has queue numbers for", "[plan]") {
  const Scenario s = load_scenario(kDir + "data/three_ranks.yaml");
  try {
    make_plan(s, ClusterLayout("golden", 32769, Ipv4Subnet::parse("10.77.0.0/16")), PlanOptions{});
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == s.path + ": 32769 ranks: the nfqueue delay backend numbers its queues "
                                            "per rank below 32768 (expected at most 32768 ranks)");
  }
}

}  // namespace plan_test
