#include "sim/program/closed_forms.hpp"

#include <catch2/catch.hpp>
#include <cmath>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace closed_forms_test {

using namespace geotrain;

namespace {
const LinkTime kLink{0.005, 2e9 / 8};  // 5 ms, 2 Gbit/s
LinkOf uniform(LinkTime l) {
  return [l](int, int) { return l; };
}
}  // namespace

TEST_CASE("ring all-reduce matches 2(N-1)/N S/B + 2(N-1) L", "[program][closed-form]") {
  const double s = 1.3e9;
  for (int n : {1, 2, 3, 5, 8}) {
    INFO("N = " << n);
    const double expected =
        2.0 * (n - 1) / n * s / kLink.bandwidth_Bps + 2.0 * (n - 1) * kLink.latency_s;
    CHECK(ring_allreduce_time(n, s, kLink) == Approx(expected).epsilon(1e-12));
    CHECK(ring_allreduce_bytes_per_rank(n, s) == Approx(2.0 * (n - 1) / n * s));
  }
  CHECK(ring_allreduce_time(1, s, kLink) == 0);
  CHECK(ring_allreduce_time(2, s, kLink) == Approx(s / kLink.bandwidth_Bps + 2 * kLink.latency_s));
  CHECK(ring_allreduce_time(5, 0, kLink) ==
        Approx(8 * kLink.latency_s));  // zero bytes: latency only
}

TEST_CASE("the slowest hop bounds a heterogeneous ring", "[program][closed-form]") {
  const double s = 8e8;
  std::vector<LinkTime> hops(5, kLink);
  hops[3] = {0.067, 0.79e9 / 8};  // one Oregon-Virginia hop in a ring of same-city links
  const double step = 0.067 + s / 5 / (0.79e9 / 8);
  CHECK(ring_allreduce_time(hops, s) == Approx(8 * step));
  CHECK(ring_reduce_scatter_time(hops, s) == Approx(4 * step));
  CHECK(ring_allgather_time(hops, s) == Approx(4 * step));
  CHECK(ring_allreduce_time(hops, s) > ring_allreduce_time(5, s, kLink));
}

TEST_CASE("direct gather and scatter through a root", "[program][closed-form]") {
  const double s = 1e8;
  CHECK(direct_gather_time(5, 0, s, uniform(kLink)) == Approx(kLink.transfer_s(s)));
  CHECK(direct_gather_time(1, 0, s, uniform(kLink)) == 0);
  // The slowest sender decides; links from the root do not matter for a gather.
  const LinkOf slow_from_3 = [](int from, int) { return from == 3 ? LinkTime{0.1, 1e7} : kLink; };
  CHECK(direct_gather_time(5, 0, s, slow_from_3) == Approx(0.1 + s / 1e7));
  CHECK(direct_scatter_time(5, 0, s, slow_from_3) == Approx(kLink.transfer_s(s)));
  CHECK(direct_gather_time_shared_nic(5, s, kLink) ==
        Approx(kLink.latency_s + 4 * s / kLink.bandwidth_Bps));
}

TEST_CASE("binomial tree all-reduce takes 2 ceil(log2 N) transfers", "[program][closed-form]") {
  const double s = 1e8;
  for (int n : {1, 2, 3, 5, 8}) {
    INFO("N = " << n);
    const double depth = std::ceil(std::log2(n));
    for (int root : {0, n - 1})
      CHECK(tree_allreduce_time(n, root, s, uniform(kLink)) ==
            Approx(2 * depth * kLink.transfer_s(s)));
  }
}

TEST_CASE("halving-doubling takes 2 log2 N latencies and 2(N-1)/N S/B", "[program][closed-form]") {
  const double s = 1e8;
  for (int n : {1, 2, 4, 8}) {
    INFO("N = " << n);
    const double expected =
        2 * std::log2(n) * kLink.latency_s + 2.0 * (n - 1) / n * s / kLink.bandwidth_Bps;
    CHECK(halving_doubling_allreduce_time(n, s, uniform(kLink)) == Approx(expected).margin(1e-12));
  }
  CHECK_THROWS_AS(halving_doubling_allreduce_time(3, s, uniform(kLink)), std::invalid_argument);
}

TEST_CASE("tandem makespan and GPipe's (M + S - 1) stage times", "[program][closed-form]") {
  CHECK(tandem_makespan({1, 3, 2}, 1) == 6);
  CHECK(tandem_makespan({1, 3, 2}, 4) == 6 + 3 * 3);
  const int stages = 4, m = 6;
  const double tf = 0.2, tb = 0.4, c = 0.05;
  const std::vector<double> f(stages, tf), b(stages, tb), link(stages - 1, c);
  const auto ends = gpipe_stage_end_times(f, b, link, link, m);
  REQUIRE(ends.size() == stages);
  CHECK(ends[0] == Approx((m + stages - 1) * (tf + tb) + 2 * (stages - 1) * c));
  // The last stage ends after its M backwards and the delivery of its last gradient.
  const double forward_end = (m + stages - 1) * tf + (stages - 1) * c;
  CHECK(ends[stages - 1] == Approx(forward_end + m * tb + c));
  // One stage, no transfers: M x (t_f + t_b).
  CHECK(gpipe_stage_end_times({tf}, {tb}, {}, {}, m)[0] == Approx(m * (tf + tb)));
  // Links slower than compute pace the pipeline instead.
  const std::vector<double> slow(stages - 1, 1.0);
  CHECK(gpipe_stage_end_times(f, b, slow, slow, m)[0] ==
        Approx(stages * tf + 3 * 1.0 + (m - 1) * 1.0 + stages * tb + 3 * 1.0 + (m - 1) * 1.0));
  CHECK(gpipe_iteration_time(ends, {1, 1, 1, 1}, {0.1, 0.1, 0.1, 0.1}) == Approx(ends[0] + 1.1));
}

TEST_CASE("bucketed overlap sits between its bounds", "[program][closed-form]") {
  const std::vector<double> compute{0.3, 0.1, 0.1, 0.1}, comm{0.05, 0.2, 0.2, 0.2};
  const double t = bucketed_fifo_time(compute, comm);
  const auto bounds = bucketed_overlap_bounds(compute, comm);
  CHECK(t == Approx(0.3 + 0.1 + 3 * 0.2));  // communication-bound from the second bucket on
  CHECK(bounds.lower_s <= t);
  CHECK(t <= bounds.upper_s);
  CHECK(bounds.upper_s == Approx(0.6 + 0.65));
  // Compute-bound: only the last bucket's all-reduce sticks out.
  const std::vector<double> fast(4, 0.01);
  CHECK(bucketed_fifo_time(compute, fast) == Approx(0.6 + 0.01));
  CHECK(bucketed_overlap_bounds(compute, fast).lower_s == Approx(0.61));
}

}  // namespace closed_forms_test
