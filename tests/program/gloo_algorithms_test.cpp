// Gloo's collectives as posted transfers (sim/program/gloo_algorithms.hpp): the segment plan of
// the ring all-reduce and what every member sends, against Gloo's own arithmetic.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "sim/common/error.hpp"
#include "sim/program/gloo_algorithms.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace gloo_algorithms_test {

using namespace geotrain;

namespace {

constexpr std::size_t kMiB = 1024 * 1024;

// Every post is waited for exactly once, and no wait comes before its post.
void check_balanced(const std::vector<GlooAction>& actions) {
  int sends = 0, recvs = 0;
  for (const auto& a : actions) {
    if (a.kind == GlooAction::post_send) ++sends;
    if (a.kind == GlooAction::post_recv) ++recvs;
    if (a.kind == GlooAction::wait_send) REQUIRE(--sends >= 0);
    if (a.kind == GlooAction::wait_recv) REQUIRE(--recvs >= 0);
  }
  CHECK(sends == 0);
  CHECK(recvs == 0);
}

// At most `depth` sends and receives outstanding at any point.
int max_in_flight(const std::vector<GlooAction>& actions) {
  int sends = 0, most = 0;
  for (const auto& a : actions) {
    if (a.kind == GlooAction::post_send) most = std::max(most, ++sends);
    if (a.kind == GlooAction::wait_send) --sends;
  }
  return most;
}

}  // namespace

TEST_CASE("Gloo ring plan: 1 MiB segments, a multiple of the group, at least two per member",
          "[program][gloo]") {
  const auto big = gloo_ring_plan(64 * kMiB, 4);
  CHECK(big.segments == 64);
  CHECK(big.segments_per_rank == 16);
  CHECK(big.segment_bytes == kMiB);
  CHECK(big.iterations == 48);
  const auto odd = gloo_ring_plan(10 * kMiB + 3, 3);  // 11 segments -> 12; 873,814 B -> x4
  CHECK(odd.segments == 12);
  CHECK(odd.segment_bytes == 873816);
  const auto small = gloo_ring_plan(1000, 4);  // minimum 2 n segments of ceil(1000/8) -> 128 B
  CHECK(small.segments == 8);
  CHECK(small.segment_bytes == 128);
  CHECK(small.iterations == 6);
}

TEST_CASE("Gloo ring all-reduce: each member sends 2 (n-1)/n of the buffer, two in flight",
          "[program][gloo]") {
  for (int n : {2, 3, 4, 7}) {
    for (std::size_t bytes : {std::size_t{4}, std::size_t{1000}, 64 * kMiB, 10 * kMiB + 4}) {
      INFO("n = " << n << ", bytes = " << bytes);
      std::size_t total = 0;
      for (int p = 0; p < n; ++p) {
        const auto actions = gloo_actions(CollectiveKind::allreduce, n, p, 0, bytes);
        check_balanced(actions);
        CHECK(max_in_flight(actions) <= 2);
        for (const auto& a : actions) {
          if (a.kind == GlooAction::post_send) CHECK(a.peer == (p + n - 1) % n);
          if (a.kind == GlooAction::post_recv) CHECK(a.peer == (p + 1) % n);
        }
        total += gloo_bytes_sent(actions);
      }
      // Over the group every byte is sent n-1 times in each phase.
      CHECK(total == 2 * static_cast<std::size_t>(n - 1) * bytes);
    }
  }
}

TEST_CASE("Gloo's sends and receives pair up member by member", "[program][gloo]") {
  for (auto kind : {CollectiveKind::allreduce, CollectiveKind::broadcast, CollectiveKind::gather,
                    CollectiveKind::scatter, CollectiveKind::allgather}) {
    for (int n : {2, 5, 8}) {
      INFO("kind " << static_cast<int>(kind) << ", n = " << n);
      const std::size_t bytes = 4 * kMiB * static_cast<std::size_t>(n);
      std::map<std::pair<int, int>, std::vector<std::size_t>> sent, received;
      for (int p = 0; p < n; ++p) {
        const auto actions = gloo_actions(kind, n, p, 1 % n, bytes);
        check_balanced(actions);
        for (const auto& a : actions) {
          if (a.kind == GlooAction::post_send) sent[{p, a.peer}].push_back(a.bytes);
          if (a.kind == GlooAction::post_recv) received[{a.peer, p}].push_back(a.bytes);
        }
      }
      CHECK(sent == received);  // same messages, same sizes, same order per pair
    }
  }
}

TEST_CASE("Gloo broadcast, gather, scatter move the buffer once per non-root member",
          "[program][gloo]") {
  const int n = 6, root = 2;
  const std::size_t bytes = 1000;
  for (auto kind : {CollectiveKind::broadcast, CollectiveKind::gather, CollectiveKind::scatter}) {
    std::size_t total = 0;
    for (int p = 0; p < n; ++p) total += gloo_bytes_sent(gloo_actions(kind, n, p, root, bytes));
    CHECK(total == (n - 1) * bytes);
  }
  // Gather: only the root receives, from everyone at once.
  const auto at_root = gloo_actions(CollectiveKind::gather, n, root, root, bytes);
  CHECK(std::count_if(at_root.begin(), at_root.end(),
                      [](const GlooAction& a) { return a.kind == GlooAction::post_recv; }) == n - 1);
  CHECK(at_root[n - 1].kind == GlooAction::wait_recv);  // all posted before the first wait
}

TEST_CASE("Gloo collectives that LibTorch's Gloo lacks are refused with the reason",
          "[program][gloo]") {
  CHECK_THROWS_WITH(gloo_actions(CollectiveKind::reduce_scatter, 4, 0, 0, 4096),
                    Catch::Contains("has none"));
  CHECK_THROWS_WITH(gloo_actions(CollectiveKind::allgather, 3, 0, 0, 1000),
                    Catch::Contains("equal chunks"));
  CHECK(gloo_actions(CollectiveKind::allreduce, 1, 0, 0, 4096).empty());
}

}  // namespace gloo_algorithms_test
