// Point-to-point fan-in / fan-out through a hub (p2p_hub.hpp: the hub's own fluid model) against
// one SimGrid flow per transfer: a parameter server taking a push from every peer and sending
// each its pull, peers in three regions of unequal NICs and WAN links, pushes staggered.
#include <catch2/catch.hpp>

#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace p2p_hub_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr int kServer = 3, kPush = 7, kPull = 8;


// Peers: compute (staggered), push, wait for the pull. Server: every push pre-posted, then per
// peer in order: wait its push, apply (10 ms), send its pull (nonblocking); wait all pulls.
Program server_program(int n, double bytes) {
  Program p = empty_program(n);
  auto& server = p.ranks[kServer];
  std::vector<int> pushes, pulls;
  for (int r = 0; r < n; ++r) {
    if (r == kServer) continue;
    pushes.push_back(static_cast<int>(server.size()));
    server.push_back(recv(r, bytes, kPush, true));
  }
  int i = 0;
  for (int r = 0; r < n; ++r) {
    if (r == kServer) continue;
    server.push_back(wait({pushes[static_cast<std::size_t>(i++)]}));
    server.push_back(compute(0.01));
    pulls.push_back(static_cast<int>(server.size()));
    server.push_back(send(r, bytes, kPull, true));
  }
  server.push_back(wait(pulls));
  for (int r = 0; r < n; ++r) {
    if (r == kServer) continue;
    auto& ops = p.ranks[static_cast<std::size_t>(r)];
    ops.push_back(compute(0.03 * ((r * 7) % 5)));
    ops.push_back(send(kServer, bytes, kPush));
    ops.push_back(recv(kServer, bytes, kPull));
  }
  return p;
}

ChildRun run(int n, int aggregate_above, bool regions) {
  Scenario s = three_region_scenario(n);
  s.simulation.aggregate_collectives_above = aggregate_above;
  engine::SimulationOptions o;
  if (regions) o.platform.pair_links_max_devices = 0;
  return simulate_in_child(s, server_program(n, 40'000'003), o, tflop_seconds());
}

}  // namespace

TEST_CASE("p2p hub: fan-in and fan-out == one SimGrid flow per transfer", "[sim][aggregated]") {
  const int n = 14;
  for (bool regions : {true, false}) {
    INFO((regions ? "regions platform" : "pairs platform"));
    const auto flows = run(n, 100000, regions);
    const auto hub = run(n, 4, regions);
    REQUIRE(flows.ok);
    REQUIRE(hub.ok);
    for (int r = 0; r < n; ++r) {
      INFO("rank " << r);
      const auto ops = flows.end_s[static_cast<std::size_t>(r)].size();
      for (std::size_t op = 0; op < ops; ++op) {
        INFO("op " << op);
        CHECK(hub.end(r, static_cast<int>(op)) == Approx(flows.end(r, static_cast<int>(op))).epsilon(1e-6));
      }
    }
    CHECK(hub.summary["bytes"]["p2p"].get<double>() == flows.summary["bytes"]["p2p"].get<double>());
    const auto& a = hub.summary["links"];
    const auto& b = flows.summary["links"];
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i)
      CHECK(a[i]["bytes"].get<double>() == Approx(b[i]["bytes"].get<double>()).epsilon(1e-12));
  }
}

}  // namespace p2p_hub_test
