// The direct collectives' aggregated form (flow groups shared max-min, aggregated_direct.hpp)
// against the message-level form (one SimGrid flow per transfer) on the regions platform, where
// flows share NICs and cross FATPIPE WAN links, and on the pairs platform (no sharing).
#include <catch2/catch.hpp>

#include "sim/engine/aggregated_direct.hpp"
#include "sim/common/small_math.hpp"
#include "sim/engine/fluid_groups.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace aggregated_direct_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {


ChildRun run_direct(const Scenario& s, int n, CollectiveKind kind, int aggregate_above,
                    bool staggered, bool regions) {
  Scenario sc = s;
  sc.simulation.aggregate_collectives_above = aggregate_above;
  Program p = empty_program(n);
  for (int r = 0; r < n; ++r) {
    auto& ops = p.ranks[static_cast<std::size_t>(r)];
    ops.push_back(compute(staggered ? 0.07 * ((r * 5) % n) : 0.5));
    ops.push_back(collective(kind, 48'000'007, CollectiveAlgorithm::direct, 3));
  }
  engine::SimulationOptions o;
  if (regions) o.platform.pair_links_max_devices = 0;
  return simulate_in_child(sc, p, o, tflop_seconds());
}

void check_same(int n, CollectiveKind kind, bool staggered, bool regions) {
  INFO(to_string(kind) << ", N = " << n << (staggered ? ", staggered entries" : ", equal entries")
                       << (regions ? ", regions platform" : ", pairs platform"));
  const Scenario s = three_region_scenario(n);
  const auto messages = run_direct(s, n, kind, 100000, staggered, regions);
  const auto groups = run_direct(s, n, kind, 1, staggered, regions);
  REQUIRE(messages.ok);
  REQUIRE(groups.ok);
  CHECK(groups.summary["collectives"][0]["algorithm"] == "direct (aggregated)");
  CHECK(messages.summary["collectives"][0]["algorithm"] == "direct");
  // A gather's early senders are released when the last member enters (documented): with
  // staggered entries only the root's end is compared for the shapes through the root.
  const bool exchange = kind == CollectiveKind::reduce_scatter || kind == CollectiveKind::allgather;
  for (int r = 0; r < n; ++r) {
    if (staggered && !exchange && r != 3) continue;
    INFO("rank " << r);
    CHECK(groups.end(r, 1) == Approx(messages.end(r, 1)).epsilon(1e-6));
  }
  CHECK(groups.summary["bytes"]["collectives"].get<double>() ==
        Approx(messages.summary["bytes"]["collectives"].get<double>()).epsilon(1e-12));
  // Bytes per link: the same links, the same bytes.
  const auto& a = groups.summary["links"];
  const auto& b = messages.summary["links"];
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i]["link"] == b[i]["link"]);
    CHECK(a[i]["bytes"].get<double>() == Approx(b[i]["bytes"].get<double>()).epsilon(1e-9));
  }
}

}  // namespace

TEST_CASE("aggregated direct collectives == message-level ones", "[sim][aggregated]") {
  for (auto kind : {CollectiveKind::gather, CollectiveKind::scatter, CollectiveKind::allreduce,
                    CollectiveKind::reduce_scatter, CollectiveKind::allgather}) {
    for (bool regions : {true, false})
      for (bool staggered : {false, true}) check_same(12, kind, staggered, regions);
  }
}

TEST_CASE("fluid groups: closed forms of shared and bound flows", "[sim][aggregated]") {
  using engine::FlowGroup;
  // 4 flows of 1e8 B into one NIC of 1e8 B/s (a fan-in), latency 0.1 s: they share it, 4 s.
  {
    FlowGroup f{0.0, 0.1, 1e8, kInf, 1.0, {{0, 4.0}}};
    const auto end = engine::solve_fluid_groups({f}, {1e8});
    CHECK(end[0] == Approx(0.1 + 4.0));
  }
  // Two groups on one link, one bound at a quarter of the link: the other takes the rest.
  // A: 1 flow of 2.5e7 B bound to 2.5e7 B/s -> 1 s; B: 3 flows of 7.5e7 B share 7.5e7 B/s until
  // A ends (2.5e7 each), then 1e8 / 3 each: 5e7 left each -> 1.5 s more -> 2.5 s.
  {
    FlowGroup a{0.0, 0.0, 2.5e7, 2.5e7, 1.0, {{0, 1.0}}};
    FlowGroup b{0.0, 0.0, 7.5e7, kInf, 1.0, {{0, 3.0}}};
    const auto end = engine::solve_fluid_groups({a, b}, {1e8});
    CHECK(end[0] == Approx(1.0));
    CHECK(end[1] == Approx(2.5));
  }
  // SimGrid's flow model weighs shares by route latency: penalties 1 and 3 on 1e8 B/s get
  // 7.5e7 and 2.5e7 B/s; 7.5e7 B each: the first ends at 1 s, the second then alone: 1.5 s.
  {
    FlowGroup a{0.0, 0.0, 7.5e7, kInf, 1.0, {{0, 1.0}}};
    FlowGroup b{0.0, 0.0, 7.5e7, kInf, 3.0, {{0, 1.0}}};
    const auto end = engine::solve_fluid_groups({a, b}, {1e8});
    CHECK(end[0] == Approx(1.0));
    CHECK(end[1] == Approx(1.5));
  }
  // A late group: B starts at 1 s; A alone until then (1e8 B/s), then both at 5e7 B/s.
  {
    FlowGroup a{0.0, 0.0, 2e8, kInf, 1.0, {{0, 1.0}}};
    FlowGroup b{1.0, 0.0, 5e7, kInf, 1.0, {{0, 1.0}}};
    const auto end = engine::solve_fluid_groups({a, b}, {1e8});
    CHECK(end[1] == Approx(2.0));
    CHECK(end[0] == Approx(2.5));
  }
}

}  // namespace aggregated_direct_test
