#include "sim/strategies/placement.hpp"

#include <catch2/catch.hpp>

#include "tests/support/remove_at_exit.hpp"
#include <filesystem>
#include <fstream>
#include <set>

#include "program_test_util.hpp"
#include "sim/common/error.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace placement_test {

using namespace geotrain;
using Catch::Matchers::Contains;

namespace {
const std::string kGpipe = "{name: gpipe, stages: 2, replicas: 3}";
}

TEST_CASE("identity placement: pipelines are runs of consecutive devices", "[program][placement]") {
  const Assignment a = resolve_placement(test::scenario_with(6, kGpipe), 2, 3);
  CHECK(a.device_of == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}});
}

TEST_CASE("random placement: a permutation, the same for the same seed", "[program][placement]") {
  const auto scenario = [](int seed) {
    return test::scenario_with(6, kGpipe, "gpt-mini",
                               fmt::format("placement: {{kind: random, seed: {}}}\n", seed));
  };
  const Assignment a = resolve_placement(scenario(7), 2, 3);
  const Assignment b = resolve_placement(scenario(7), 2, 3);
  const Assignment c = resolve_placement(scenario(8), 2, 3);
  CHECK(a.device_of == b.device_of);
  CHECK(a.device_of != c.device_of);
  std::set<int> seen;
  for (const auto& row : a.device_of) seen.insert(row.begin(), row.end());
  CHECK(seen == std::set<int>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("file placement: read and checked", "[program][placement]") {
  const std::filesystem::path dir = geotrain::test::process_temp_path("geotrain_placement_test");
  std::filesystem::create_directories(dir);
  const auto good = (dir / "good.json").string();
  std::ofstream(good)
      << R"({"groups": [[5, 3, 1], [4, 2, 0]], "pipelines": [[5, 4], [3, 2], [1, 0]]})";
  const auto scenario = [](const std::string& file) {
    return test::scenario_with(6, kGpipe, "gpt-mini",
                               "placement: {kind: file, file: " + file + "}\n");
  };
  const Assignment a = resolve_placement(scenario(good), 2, 3);
  CHECK(a.device_of == std::vector<std::vector<int>>{{5, 4}, {3, 2}, {1, 0}});
  const auto bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"groups": [[5, 3, 1], [4, 2, 9]]})";
  CHECK_THROWS_WITH(resolve_placement(scenario(bad), 2, 3),
                    Contains("groups[1][2] = 9: no such device (expected 0 to 5)"));
}

TEST_CASE("placement errors: wrong shape, and the scheduler kind", "[program][placement]") {
  const Scenario s = test::scenario_with(6, kGpipe);
  CHECK_THROWS_WITH(resolve_placement(s, 4, 2),
                    Contains("4 stages x 2 replicas does not cover the 6 participating devices"));
  const Scenario sched =
      test::scenario_with(6, kGpipe, "gpt-mini", "placement: {kind: scheduler}\n");
  CHECK_THROWS_AS(resolve_placement(sched, 2, 3), InputError);
  CHECK_THROWS_WITH(resolve_placement(sched, 2, 3),
                    Contains("placement.kind = scheduler: run the scheduler first"));
}

}  // namespace placement_test
