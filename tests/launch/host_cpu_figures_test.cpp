// The emulation host's busy CPU over the measured steps, from the workers' readings, against
// hand-computed figures; and the /proc/stat parse.
#include "emu/launch/host_cpu_figures.hpp"

#include <catch2/catch.hpp>

#include <cmath>

#include "emu/worker/host_cpu.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace host_cpu_figures_test {

using namespace geotrain;
using namespace geotrain::emu;

namespace {

// Two ranks, steps 0..2 of 1 s each; every step one Compute op of 0.6 s wall and 0.3 s CPU on
// each rank, then a send. The machine's busy CPU reads 10, 11.5, 13 at the steps' ends.
RankMeasurements two_ranks(bool with_readings) {
  RankMeasurements m;
  m.ops.resize(2);
  m.iterations.resize(2);
  for (int r = 0; r < 2; ++r)
    for (int s = 0; s < 3; ++s) {
      m.ops[r].push_back({r, 0, s, "forward", "forward", s + 0.0, s + 0.6, 0, with_readings ? 0.3 : std::nan("")});
      m.ops[r].push_back({r, 1, s, "send", "send", s + 0.6, s + 1.0, 100, std::nan("")});
      m.iterations[r].push_back({s, 1.0, 5.0, 100, with_readings ? 10 + 1.5 * s : std::nan("")});
    }
  return m;
}

}  // namespace

TEST_CASE("host CPU figures: busy minus compute over the measured span", "[launch][host_cpu]") {
  const auto h = host_cpu_figures(two_ranks(true), 1, 2);
  REQUIRE(h.has_value());
  CHECK(h->cores == 2);
  CHECK(h->span_s == Approx(2.0));        // rank 0's end of step 0 (1.0) to its end of step 2 (3.0)
  CHECK(h->busy_core_s == Approx(3.0));   // 13 - 10
  CHECK(h->compute_core_s == Approx(1.2));  // steps 1 and 2, two ranks, 0.3 s each
  CHECK(h->background_cores == Approx(0.9));  // (3 - 1.2) / 2
}

TEST_CASE("host CPU figures: nothing to say without readings, cores or measured steps", "[launch][host_cpu]") {
  CHECK_FALSE(host_cpu_figures(two_ranks(false), 1, 2).has_value());
  CHECK_FALSE(host_cpu_figures(two_ranks(true), 1, 0).has_value());
  CHECK_FALSE(host_cpu_figures(two_ranks(true), 3, 2).has_value());
  CHECK_FALSE(host_cpu_figures(two_ranks(true), 0, 2).has_value());
}

TEST_CASE("host CPU: /proc/stat's first line counts user, nice, system, irq, softirq and steal",
          "[launch][host_cpu]") {
  // user nice system idle iowait irq softirq steal guest guest_nice
  CHECK(busy_cpu_s_of("cpu  100 5 50 1000 20 3 7 15 0 0", 100) == Approx(1.8));
  CHECK(std::isnan(busy_cpu_s_of("cpu0 1 2 3 4 5 6 7 8", 100)));
  CHECK(std::isnan(busy_cpu_s_of("cpu 1 2", 100)));
  CHECK(std::isfinite(host_busy_cpu_s()));
}

}  // namespace host_cpu_figures_test
