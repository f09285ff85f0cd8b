// Ops that run every d-th iteration (IterationRange::every, Moshpit's rotating grid axis): which
// iterations they run in, the epochs validation walks, their JSON and the one-period rule.
#include <catch2/catch.hpp>

#include "program_test_util.hpp"
#include "sim/program/program.hpp"
#include "sim/program/program_json.hpp"
#include "sim/program/program_validation.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace iteration_period_test {

using namespace geotrain;

namespace {

// Two ranks that average in groups "axis 0" on even iterations and "axis 1" on odd ones (the
// same two ranks, as a 2 x 1 grid would make them).
Program rotating(int period_of_second = 2) {
  Program p;
  p.strategy = "hand-made";
  p.world_size = 2;
  p.device_of_rank = {0, 1};
  p.ranks.resize(2);
  p.groups.push_back({0, "axis 0", {0, 1}});
  p.groups.push_back({1, "axis 1", {0, 1}});
  for (int r = 0; r < 2; ++r) {
    auto& ops = p.ranks[static_cast<std::size_t>(r)];
    ops.push_back({ComputeOp{}, false, "step"});
    for (GroupId g : {0, 1}) {
      CollectiveOp c;
      c.group = g, c.bytes = 1e3;
      Op op{c, false, "average"};
      op.iterations = {{g, -1, g == 0 ? 2 : period_of_second}};
      ops.push_back(op);
    }
  }
  return p;
}

}  // namespace

TEST_CASE("periodic iteration ranges: active every d-th iteration from begin", "[program][period]") {
  const IterationRange r{1, 9, 3};
  std::vector<int> on;
  for (int it = 0; it < 12; ++it)
    if (r.contains(it)) on.push_back(it);
  CHECK(on == std::vector<int>{1, 4, 7});
  const Program p = rotating();
  CHECK(p.ranks[0][1].active_in(4));
  CHECK_FALSE(p.ranks[0][1].active_in(5));
  CHECK(p.ranks[0][2].active_in(5));
  CHECK(program_problems(p).empty());
  // Epochs cover both phases of the period.
  const auto epochs = program_epochs(p);
  CHECK(std::find(epochs.begin(), epochs.end(), 0) != epochs.end());
  CHECK(std::find(epochs.begin(), epochs.end(), 1) != epochs.end());
}

TEST_CASE("periodic iteration ranges: JSON round trip, one period per Program", "[program][period]") {
  const Program p = rotating();
  const auto j = program_to_json(p);
  CHECK(j["ranks"][0][1]["iterations"][0] == nlohmann::json::array({0, -1, 2}));
  const Program back = program_from_json(j);
  CHECK(back.ranks[1][2].iterations == p.ranks[1][2].iterations);
  CHECK(program_to_json(back) == j);
  const auto problems = test::joined(program_problems(rotating(3)));
  CHECK(problems.find("iterations every 3 where other ops repeat every 2") != std::string::npos);
}

}  // namespace iteration_period_test
