#include "sim/common/iteration_intervals.hpp"

#include <utility>
#include <vector>

#include <catch2/catch.hpp>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace iteration_intervals_test {

using namespace geotrain;

TEST_CASE("CompletionIntervals: intervals between the last rank's ends of each iteration", "[core]") {
  CompletionIntervals clock(3);
  clock.add(0, 1.0, 2.0, 0), clock.add(0, 0.5, 3.0, 1);
  clock.add(1, 2.0, 4.0, 0), clock.add(1, 3.0, 3.5, 1);
  clock.add(2, 4.0, 7.0, 0), clock.add(2, 3.5, 6.5, 1);
  clock.add(5, 0.0, 99.0, 0);  // out of range: ignored
  CHECK(clock.intervals() == std::vector<double>{2.5, 1.0, 3.0});  // from the first start, 0.5
  // Synchronous: both ranks finish the last iteration after every earlier one is complete.
  CHECK(clock.steady_iterations() == 3);
}

TEST_CASE("CompletionIntervals: an asynchronous run's drain is not steady", "[core]") {
  // Rank 0 runs 1 s iterations and is done at 6 s; rank 1 needs 2.5 s while rank 0 is there,
  // then 0.5 s alone. Completion intervals 2.5, 2.5, 2.5, 0.5, 0.5, 0.5: the median of all
  // (1.5 s, between the two) says how the run ended, not its pace.
  CompletionIntervals clock(6);
  const double slow_end[] = {2.5, 5, 7.5, 8, 8.5, 9};
  for (int k = 0; k < 6; ++k) {
    clock.add(k, k, k + 1, 0);
    clock.add(k, k ? slow_end[k - 1] : 0, slow_end[k], 1);
  }
  CHECK(clock.intervals() == std::vector<double>{2.5, 2.5, 2.5, 0.5, 0.5, 0.5});
  // The drain begins at 6 s: iterations 0-2 started (at 0, 2.5, 5 s) before it, 3-5 after.
  CHECK(clock.steady_iterations() == 3);
}

TEST_CASE("CompletionIntervals: without ranks, or with a rank gone before the end, no drain", "[core]") {
  CompletionIntervals unnamed(2);
  unnamed.add(0, 0, 1), unnamed.add(1, 1, 5), unnamed.add(1, 1, 2);
  CHECK(unnamed.steady_iterations() == 2);
  // Rank 2 left after iteration 0 (churn): it is not in the last iteration, so its early end is
  // not a drain.
  CompletionIntervals churn(3);
  churn.add(0, 0, 1, 2);
  for (int k = 0; k < 3; ++k) churn.add(k, k, k + 1, 0), churn.add(k, k, k + 1, 1);
  CHECK(churn.steady_iterations() == 3);
}

TEST_CASE("judged iterations: from the warm-up to the drain, with the fallbacks compare and emulate share",
          "[core]") {
  auto range = [](int n, int warmup, int steady) {
    const auto j = judged_iterations(n, warmup, steady);
    return std::pair<int, int>{j.first, j.last};
  };
  CHECK(range(8, 1, 8) == std::pair<int, int>{1, 8});   // synchronous: everything after the warm-up
  CHECK(range(24, 1, 12) == std::pair<int, int>{1, 12});  // the drain (12..23) left out
  CHECK(range(8, 3, 2) == std::pair<int, int>{3, 8});   // nothing steady after the warm-up
  CHECK(range(2, 2, 1) == std::pair<int, int>{0, 1});   // the warm-up takes all: before the drain
  CHECK(range(2, 5, 2) == std::pair<int, int>{0, 2});
  CHECK(range(4, 0, 100) == std::pair<int, int>{0, 4});  // steady beyond the run is the run
  const auto unbounded = judged_iterations(5, 1);
  CHECK((unbounded.first == 1 && unbounded.last == 5));
}

// Moshpit's rounds alternate between its grid axes: intervals 1, 3, 1, 3, ... A median of single
// intervals is 1 or 3 depending on where the judged ones start; the means of one cycle are 2
// wherever they start.
TEST_CASE("judged times: a Program's cycle is judged by the means of one cycle's intervals", "[core]") {
  const std::vector<double> alternating{9, 1, 3, 1, 3, 1, 3, 1};  // step 0: the warm-up
  const auto judged = judged_iterations(8, 1);
  const auto singles = judged_times(alternating, judged, 1);
  REQUIRE(singles.size() == 7);
  CHECK(singles.front() == std::pair<int, double>{1, 1.0});
  const auto cycles = judged_times(alternating, judged, 2);
  REQUIRE(cycles.size() == 6);  // windows starting at 1 .. 6, each inside the judged 1 .. 7
  for (const auto& [first, t] : cycles) CHECK(t == 2.0);
  CHECK(cycles.back().first == 6);
  // Fewer judged iterations than the cycle: the intervals themselves.
  CHECK(judged_times(alternating, judged_iterations(8, 7), 2).size() == 1);
}

}  // namespace iteration_intervals_test
