// simulation.host_cores (every rank computes on one machine's shared cores) against processor
// sharing in closed form: n computations of c seconds on k cores, with no communication, each run
// at min(1, k / n) of a core, so all end at c x max(1, n / k); unequal ones end in order, the
// shortest first, each at the time the equal share reaches it.
#include <catch2/catch.hpp>

#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace host_cores_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

// Every rank computes once: rank r for seconds[r].
Program computations(const std::vector<double>& seconds) {
  Program p = empty_program(static_cast<int>(seconds.size()));
  for (std::size_t r = 0; r < seconds.size(); ++r) p.ranks[r] = {compute(seconds[r])};
  return p;
}

ChildRun run(const std::vector<double>& seconds, int cores) {
  Scenario s = uniform_scenario(static_cast<int>(seconds.size()), 0.01, 1e8);
  s.simulation.host_cores = cores;
  return simulate_in_child(s, computations(seconds), {}, tflop_seconds());
}

}  // namespace

TEST_CASE("host cores: n equal computations on k cores take c x max(1, n / k)", "[sim][host_cores]") {
  const int cores = GENERATE(1, 2, 4, 8);
  INFO(cores << " cores, 4 ranks of 1 s");
  const auto r = run({1, 1, 1, 1}, cores);
  REQUIRE(r.ok);
  const double expected = std::max(1.0, 4.0 / cores);
  for (int rank = 0; rank < 4; ++rank) {
    CHECK(r.start(rank, 0) == Approx(0).margin(1e-9));
    CHECK(r.end(rank, 0) == Approx(expected).margin(1e-6));
  }
}

TEST_CASE("host cores: unequal computations on one core end as processor sharing says", "[sim][host_cores]") {
  // 1, 2 and 3 s on one core: all three share until 3 x 1 = 3 s (the 1 s one ends), then two
  // share until 3 + 2 x 1 = 5 s, then the last runs alone until 6 s.
  const auto r = run({1, 2, 3}, 1);
  REQUIRE(r.ok);
  CHECK(r.end(0, 0) == Approx(3).margin(1e-6));
  CHECK(r.end(1, 0) == Approx(5).margin(1e-6));
  CHECK(r.end(2, 0) == Approx(6).margin(1e-6));
}

TEST_CASE("host cores: 0 keeps a device per rank (computations overlap freely)", "[sim][host_cores]") {
  const auto r = run({1, 2, 3}, 0);
  REQUIRE(r.ok);
  CHECK(r.end(0, 0) == Approx(1).margin(1e-9));
  CHECK(r.end(1, 0) == Approx(2).margin(1e-9));
  CHECK(r.end(2, 0) == Approx(3).margin(1e-9));
}

TEST_CASE("host cores: a rank waiting for data leaves its core to the others", "[sim][host_cores]") {
  // Rank 0 computes 1 s then sends; rank 1 waits for it, then computes 1 s; rank 2 computes 2 s.
  // On one core: ranks 0 and 2 share it until 2 s (rank 0 done), rank 2 has 1 s left and rank 1
  // starts after the transfer (L + S/B = 0.02 s) and shares with it.
  Scenario s = uniform_scenario(3, 0.01, 1e8);
  s.simulation.host_cores = 1;
  Program p = empty_program(3);
  p.ranks[0] = {compute(1), send(1, 1e6, 0)};
  p.ranks[1] = {recv(0, 1e6, 0), compute(1)};
  p.ranks[2] = {compute(2)};
  const auto r = simulate_in_child(s, p, {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.end(0, 0) == Approx(2).margin(1e-6));
  const double arrival = 2 + 0.01 + 1e6 / 1e8;
  CHECK(r.end(1, 0) == Approx(arrival).margin(1e-6));
  // Rank 2 alone for 0.02 s (0.98 s left), then both at half speed: rank 2 ends after 1.96 s,
  // rank 1 has 0.02 s left and ends 0.02 s later.
  CHECK(r.end(2, 0) == Approx(arrival + 1.96).margin(1e-6));
  CHECK(r.end(1, 1) == Approx(arrival + 1.98).margin(1e-6));
}

}  // namespace host_cores_test
