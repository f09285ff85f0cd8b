// network.bandwidth_changes in the simulator (sim/engine/bandwidth_profiles.hpp) against closed
// forms under the flow model: a transfer of S bytes over a link of latency L and bandwidth B
// that drops to f B at t1 (latency is charged first, then bytes move at the link's rate)
// ends at t1 + (S - B (t1 - L)) / (f B).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace bandwidth_profiles_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kL = 0.010;   // 10 ms
constexpr double kB = 1.25e8;  // 1 Gbit/s
constexpr double kS = 100e6;   // 100 MB: 0.81 s unchanged

BandwidthChangeSpec change(double at_s, double factor, BandwidthSelector select = {}) {
  BandwidthChangeSpec c;
  c.at_s = at_s;
  c.factor = factor;
  c.select = std::move(select);
  return c;
}

BandwidthSelector devices(std::vector<int> ids) {
  return {BandwidthSelector::Scope::devices, -1, -1, std::move(ids)};
}

Program one_transfer(int n, int src, int dst) {
  Program p = empty_program(n);
  p.ranks[static_cast<std::size_t>(src)].push_back(send(dst, kS, 7));
  p.ranks[static_cast<std::size_t>(dst)].push_back(recv(src, kS, 7));
  return p;
}

double dropped_at(double t1, double f) { return t1 + (kS - kB * (t1 - kL)) / (f * kB); }

}  // namespace

TEST_CASE("a transfer slows down mid-flight when its link drops", "[sim][bandwidth]") {
  Scenario s = uniform_scenario(2, kL, kB);
  for (double f : {0.25, 0.5, 2.0}) {
    INFO("factor " << f);
    s.bandwidth_changes = {change(0.4, f)};
    const auto r = simulate_in_child(s, one_transfer(2, 0, 1), {}, tflop_seconds());
    REQUIRE(r.ok);
    CHECK(r.makespan() == Approx(dropped_at(0.4, f)).epsilon(1e-9));
  }
  // 0.25 at 0.4 s: 0.4 + (100 MB - 48.75 MB) / 31.25 MB/s = 2.04 s instead of 0.81 s.
  CHECK(dropped_at(0.4, 0.25) == Approx(2.04));
}

TEST_CASE("a change at 0 s is the scaled link, a restore brings the rate back", "[sim][bandwidth]") {
  Scenario s = uniform_scenario(2, kL, kB);
  s.bandwidth_changes = {change(0, 0.5)};
  auto r = simulate_in_child(s, one_transfer(2, 0, 1), {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.makespan() == Approx(kL + kS / (0.5 * kB)).epsilon(1e-9));
  // 0.5 from 0 to 0.4 s, then 1 again: 0.39 s moved 24.375 MB.
  s.bandwidth_changes = {change(0.4, 1), change(0, 0.5)};
  r = simulate_in_child(s, one_transfer(2, 0, 1), {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.makespan() == Approx(0.4 + (kS - 0.5 * kB * (0.4 - kL)) / kB).epsilon(1e-9));
}

TEST_CASE("a change on other pairs leaves a transfer untouched", "[sim][bandwidth]") {
  Scenario s = uniform_scenario(4, kL, kB);
  s.bandwidth_changes = {change(0.2, 0.1, devices({2, 3}))};
  const auto r = simulate_in_child(s, one_transfer(4, 0, 1), {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.makespan() == Approx(kL + kS / kB).epsilon(1e-9));
  // The same change on device 1 applies to both directions of its links.
  s.bandwidth_changes = {change(0.4, 0.25, devices({1}))};
  const auto hit = simulate_in_child(s, one_transfer(4, 1, 0), {}, tflop_seconds());
  REQUIRE(hit.ok);
  CHECK(hit.makespan() == Approx(dropped_at(0.4, 0.25)).epsilon(1e-9));
}

TEST_CASE("regions platform: every link scales NICs and WAN alike", "[sim][bandwidth]") {
  Scenario s = one_region_scenario(3, kL, kB);
  s.bandwidth_changes = {change(0.4, 0.25)};
  engine::SimulationOptions o;
  o.platform.pair_links_max_devices = 0;
  const auto r = simulate_in_child(s, one_transfer(3, 0, 2), o, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.summary.at("platform") == "regions");
  CHECK(r.makespan() == Approx(dropped_at(0.4, 0.25)).epsilon(1e-9));
}

TEST_CASE("ring all-reduce on dropped links, message-level and aggregated", "[sim][bandwidth]") {
  const int n = 4;
  Scenario s = uniform_scenario(n, kL, kB);
  s.bandwidth_changes = {change(0, 0.5)};
  const double expected = 2.0 * (n - 1) / n * kS / (0.5 * kB) + 2.0 * (n - 1) * kL;
  for (int above : {64, 1}) {
    INFO("aggregate above " << above);
    s.simulation.aggregate_collectives_above = above;
    Program p = empty_program(n);
    for (auto& ops : p.ranks) ops.push_back(collective(CollectiveKind::allreduce, kS));
    const auto r = simulate_in_child(s, p, {}, tflop_seconds());
    REQUIRE(r.ok);
    CHECK(r.makespan() == Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("the applied changes land in bandwidth_changes.csv", "[sim][bandwidth]") {
  Scenario s = uniform_scenario(3, kL, kB);
  s.bandwidth_changes = {change(0.4, 0.25, devices({1})), change(1.0, 1, devices({1}))};
  const auto dir = (std::filesystem::temp_directory_path() / "geotrain-bw-csv-test").string();
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto r = simulate_in_child(s, one_transfer(3, 0, 1), {}, tflop_seconds(), dir);
  REQUIRE(r.ok);
  std::ifstream in(dir + "/bandwidth_changes.csv");
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() ==
        "at_s,link,src,dst,factor,bandwidth_Bps\n"
        "0.4,d0>d1,0,1,0.25,31250000\n"
        "0.4,d1>d0,1,0,0.25,31250000\n"
        "0.4,d1>d2,1,2,0.25,31250000\n"
        "0.4,d2>d1,2,1,0.25,31250000\n"
        "1,d0>d1,0,1,1,125000000\n"
        "1,d1>d0,1,0,1,125000000\n"
        "1,d1>d2,1,2,1,125000000\n"
        "1,d2>d1,2,1,1,125000000\n");
  std::filesystem::remove_all(dir);
}

}  // namespace bandwidth_profiles_test

namespace bandwidth_profiles_test {

// SimGrid 3.3x's LV08 (the tcp model) re-applied every flow's sharing penalty on a bandwidth
// change, also to flows still in their latency phase, and its lazy update then never finished
// them ("Deadlock detected"; sim/engine/network_config.cpp). Closed form: the flow's latency, then
// its bytes at the changed rate (window and sharing do not bind: one flow, a 32 MB window).
TEST_CASE("tcp model: a change while a flow is still in its latency phase finishes it", "[sim][bandwidth]") {
  Scenario s = uniform_scenario(2, kL, kB);
  s.simulation.network_model = NetworkModel::tcp;
  for (double at : {0.005, 0.4, 100.0}) {
    INFO("change at " << at << " s");
    s.bandwidth_changes = {change(at, 0.5)};
    const auto r = simulate_in_child(s, one_transfer(2, 0, 1), {}, tflop_seconds());
    REQUIRE(r.ok);
    const double expected = at < kL ? kL + kS / (0.5 * kB) : at > 1 ? kL + kS / kB : dropped_at(at, 0.5);
    CHECK(r.makespan() == Approx(expected).epsilon(1e-6));
  }
}

}  // namespace bandwidth_profiles_test
