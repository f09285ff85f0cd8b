// The up-front memory estimate (sim/scenario/memory_estimate.hpp), exercised through
// GEOTRAIN_MEMORY_LIMIT: nothing here allocates what it estimates.
#include "sim/scenario/memory_estimate.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>

#include "sim/common/error.hpp"
#include "sim/common/memory_budget.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace memory_estimate_test {

using namespace geotrain;

namespace {
// Sets GEOTRAIN_MEMORY_LIMIT for one scope.
struct LimitScope {
  explicit LimitScope(const char* value) { ::setenv(kMemoryLimitVariable, value, 1); }
  ~LimitScope() { ::unsetenv(kMemoryLimitVariable); }
};
const std::string kCase2 =
    "devices: {count: 100000}\nnetwork: {case: 2}\nmodel: {preset: gpt-tiny}\n"
    "strategy: {name: ddp-allreduce}\n";
}  // namespace

TEST_CASE("the estimate grows with the pair tables", "[memory]") {
  MemoryInputs small{64, 8, false, 0};
  MemoryInputs regions{100000, 62500, false, 0};
  MemoryInputs matrix{10000, 10000, true, 0};
  MemoryInputs scheduled{1024, 8, false, 100};
  CHECK(estimate_memory(small).bytes < 100e6);
  CHECK(estimate_memory(regions).bytes > 62500.0 * 62500 * 32);
  CHECK(estimate_memory(regions).detail == "100000 devices, region table 62500 x 62500");
  CHECK(estimate_memory(matrix).bytes > 10000.0 * 10000 * 16);
  CHECK(estimate_memory(scheduled).detail ==
        "1024 devices, region table 8 x 8, scheduler 1024 x 1024 and population 100");
}

TEST_CASE("work that cannot fit is refused at the device count, with the estimate",
          "[memory][errors]") {
  LimitScope limit("1GiB");
  try {
    parse_scenario(kCase2, "big.yaml", "");
    FAIL("accepted");
  } catch (const ScenarioError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0] ==
          "big.yaml:1: devices.count = '100000': this run needs an estimated 117 GiB (100000 "
          "devices, region table 62500 x 62500), more than the 1 GiB allowed by "
          "GEOTRAIN_MEMORY_LIMIT");
  }
}

TEST_CASE("a small scenario passes under a small limit, a bad limit is bad input", "[memory]") {
  {
    LimitScope limit("200MiB");
    CHECK_NOTHROW(
        parse_scenario("devices: {count: 64}\nnetwork: {case: 5}\nmodel: {preset: gpt-tiny}\n"
                       "strategy: {name: ddp-allreduce}\n",
                       "small.yaml", ""));
  }
  LimitScope limit("lots");
  CHECK_THROWS_AS(parse_scenario(kCase2, "big.yaml", ""), InputError);
}

}  // namespace memory_estimate_test
