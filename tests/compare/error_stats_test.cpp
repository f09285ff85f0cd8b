#include "sim/compare/error_stats.hpp"

#include <catch2/catch.hpp>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace error_stats_test {

using namespace geotrain::compare;

TEST_CASE("error_pct is signed and relative to the measured value", "[compare]") {
  CHECK(error_pct(1.1, 1.0) == Approx(10));
  CHECK(error_pct(0.9, 1.0) == Approx(-10));
  CHECK(error_pct(1.0, 0.0) == 0);
}

TEST_CASE("median and quantiles", "[compare]") {
  CHECK(median({}) == 0);
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 2, 3}) == Approx(2.5));
  CHECK(quantile({0, 10}, 0.1) == Approx(1));
  CHECK(quantile({5, 0, 10}, 1) == 10);
  CHECK(quantile({5, 0, 10}, 0) == 0);
}

TEST_CASE("error_stats over absolute errors", "[compare]") {
  const auto s = error_stats({-2, 4, -20, 10, 1});
  CHECK(s.cases == 5);
  CHECK(s.median_abs_pct == Approx(4));
  CHECK(s.max_abs_pct == Approx(20));
  CHECK(s.mean_abs_pct == Approx(37.0 / 5));
  CHECK(s.within_5_pct == 3);
  CHECK(s.within_15_pct == 4);
  CHECK(error_stats({}).cases == 0);
}

TEST_CASE("mean is the arithmetic mean, apart from the median on a skewed sample", "[compare]") {
  CHECK(mean({1, 2, 6}) == Approx(3));
  CHECK(median({1, 2, 6}) == Approx(2));
  CHECK(mean({}) == 0);
}

}  // namespace error_stats_test
