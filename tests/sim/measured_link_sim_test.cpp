// A transfer between two measured regions (network.measured) against its closed form: one
// transfer of S bytes takes the table's one-way delay + S / the table's bandwidth, within 0.1%.
#include <catch2/catch.hpp>

#include "sim/scenario/measured_table.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace measured_link_sim_test {

using namespace geotrain;
using namespace geotrain::test;

TEST_CASE("one transfer between measured regions takes delay + bytes / bandwidth",
          "[sim][closed-form]") {
  const std::string source = GEOTRAIN_SOURCE_DIR;
  const Scenario s = parse_scenario(R"(
devices:
  groups: [{region: aws:us-east-1, count: 1}, {region: gcp:europe-west4, count: 1}]
network: {measured: skyplane_2022}
model: {preset: gpt-tiny}
strategy: {name: ddp-allreduce}
)",
                                    "test.yaml", source, {});
  std::vector<std::string> problems;
  const auto table =
      MeasuredTable::read(source + "/scenarios/networks/skyplane_2022.csv", "t", problems);
  REQUIRE(problems.empty());
  constexpr double kS = 100e6;  // 100 MB
  for (const auto& [from, to] : {std::pair{0, 1}, std::pair{1, 0}}) {
    const Link l = table
                       .find(from == 0 ? "aws:us-east-1" : "gcp:europe-west4",
                             to == 0 ? "aws:us-east-1" : "gcp:europe-west4")
                       ->link;
    Program p = empty_program(2);
    p.ranks[static_cast<std::size_t>(from)].push_back(send(to, kS, 7));
    p.ranks[static_cast<std::size_t>(to)].push_back(recv(from, kS, 7));
    const auto r = simulate_in_child(s, p, {}, tflop_seconds());
    REQUIRE(r.ok);
    INFO(from << " -> " << to);
    CHECK(r.makespan() == Approx(l.delay_s + kS / l.bandwidth_Bps).epsilon(1e-3));
  }
}

}  // namespace measured_link_sim_test
