// simulation.buffered_sends (a send of at most one TCP window completes when the socket holds
// its bytes) against closed forms on uniform links (delay L, bandwidth B, one link per ordered
// pair). The transfers themselves are unchanged; only when the sender is released moves.
#include <catch2/catch.hpp>

#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace buffered_sends_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

constexpr double kL = 0.01, kB = 1e8, kS = 1e6;

// Rank 0 sends two messages of S to rank 1 (blocking), then computes 1 s; rank 1 receives both.
Program two_sends() {
  Program p = empty_program(2);
  p.ranks[0] = {send(1, kS, 0), send(1, kS, 1), compute(1.0)};
  p.ranks[1] = {recv(0, kS, 0), recv(0, kS, 1)};
  return p;
}

}  // namespace

TEST_CASE("buffered sends: the sender is released at once, the bytes leave back to back",
          "[sim][buffered]") {
  Scenario s = uniform_scenario(2, kL, kB);
  s.simulation.buffered_sends = true;
  const auto r = simulate_in_child(s, two_sends(), {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.end(0, 0) == Approx(0).margin(1e-9));
  CHECK(r.end(0, 1) == Approx(0).margin(1e-9));
  CHECK(r.end(0, 2) == Approx(1.0).margin(1e-9));  // the compute is not held up by the transfers
  // One connection: the second message follows the first by S/B, not by L + S/B.
  CHECK(r.end(1, 0) == Approx(kL + kS / kB).margin(1e-9));
  CHECK(r.end(1, 1) == Approx(kL + 2 * kS / kB).margin(1e-9));
}

TEST_CASE("buffered sends: off, a send completes when its bytes arrive", "[sim][buffered]") {
  const auto r = simulate_in_child(uniform_scenario(2, kL, kB), two_sends(), {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.end(0, 0) == Approx(kL + kS / kB).margin(1e-9));
  CHECK(r.end(0, 1) == Approx(2 * (kL + kS / kB)).margin(1e-9));
  CHECK(r.end(0, 2) == Approx(1.0 + 2 * (kL + kS / kB)).margin(1e-9));
}

TEST_CASE("buffered sends: a message larger than the TCP window still waits for its arrival",
          "[sim][buffered]") {
  Scenario s = uniform_scenario(2, kL, kB);
  s.simulation.buffered_sends = true;
  s.tcp_buffer_bytes = kS;  // window = half the buffer < S
  const auto r = simulate_in_child(s, two_sends(), {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.end(0, 0) == Approx(r.end(1, 0)).margin(1e-9));
  CHECK(r.end(0, 0) > kS / kB);
}

TEST_CASE("buffered sends: a direct scatter's root is free once its sends are handed over",
          "[sim][buffered]") {
  Scenario s = uniform_scenario(3, kL, kB);
  s.simulation.buffered_sends = true;
  Program p = empty_program(3);
  for (auto& ops : p.ranks) ops.push_back(collective(CollectiveKind::scatter, kS, CollectiveAlgorithm::direct));
  const auto r = simulate_in_child(s, p, {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.end(0, 0) == Approx(0).margin(1e-9));
  // Each receiver gets the root's buffer over its own link (direct_from_root: S to everyone).
  CHECK(r.end(1, 0) == Approx(kL + kS / kB).margin(1e-9));
  CHECK(r.end(2, 0) == Approx(kL + kS / kB).margin(1e-9));
}

}  // namespace buffered_sends_test
