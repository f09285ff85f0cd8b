// The run-time rules both executors share: seeded gossip pairings and the partial-reduce window.
#include <catch2/catch.hpp>

#include <set>

#include "sim/common/error.hpp"
#include "sim/program/dynamic_rules.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace dynamic_rules_test {

using namespace geotrain;

TEST_CASE("gossip pairings are symmetric, complete and seeded", "[decentralized][rules]") {
  for (int n : {1, 2, 3, 5, 8}) {
    for (std::int64_t round = 0; round < 20; ++round) {
      const auto partner = gossip_pairing(7, round, n);
      REQUIRE(partner.size() == static_cast<std::size_t>(n));
      int alone = 0;
      for (int i = 0; i < n; ++i) {
        const int j = partner[static_cast<std::size_t>(i)];
        if (j < 0) {
          ++alone;
          continue;
        }
        CHECK(j != i);
        CHECK(partner[static_cast<std::size_t>(j)] == i);
      }
      CHECK(alone == n % 2);
    }
  }
  CHECK(gossip_pairing(7, 3, 8) == gossip_pairing(7, 3, 8));
  // Different rounds (and seeds) give different pairings: over 20 rounds of 8 members, every
  // member meets several partners.
  std::set<int> met;
  for (std::int64_t round = 0; round < 20; ++round) met.insert(gossip_pairing(7, round, 8)[0]);
  CHECK(met.size() >= 4);
  bool differs = false;
  for (std::int64_t round = 0; round < 5; ++round)
    differs = differs || gossip_pairing(1, round, 8) != gossip_pairing(2, round, 8);
  CHECK(differs);
}

TEST_CASE("unit draws are uniform in the unit interval and depend only on their keys",
          "[decentralized][rules]") {
  double sum = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double u = unit_draw(3, static_cast<std::uint64_t>(i));
    REQUIRE(u >= 0);
    REQUIRE(u < 1);
    sum += u;
  }
  // Mean of n uniforms: standard error 1 / sqrt(12 n) ~ 0.0009.
  CHECK(sum / n == Approx(0.5).margin(0.005));
  CHECK(unit_draw(3, 5, 6, 7) == unit_draw(3, 5, 6, 7));
  CHECK(unit_draw(3, 5, 6, 7) != unit_draw(3, 5, 7, 6));
}

TEST_CASE("partial reduce: the window opens at the first arrival and closes after window_s",
          "[decentralized][rules]") {
  PartialReduceWindow w(4, 1e-3, 1e-5, 1e-2, 0);
  CHECK_FALSE(w.closes_at_s());
  w.ready(2, 10.0);
  w.ready(0, 10.0005);
  REQUIRE(w.closes_at_s());
  CHECK(*w.closes_at_s() == Approx(10.001));
  CHECK(w.close() == std::vector<int>{0, 2});
  CHECK(w.window_s() == Approx(0.9e-3));  // a real group: the window shrinks by 10%
  w.ready(1, 11.0);
  CHECK(*w.closes_at_s() == Approx(11.0009));
  CHECK(w.close() == std::vector<int>{1});
  CHECK(w.window_s() == Approx(1.8e-3));  // alone: the window doubles
  // Everyone in: closes at the last arrival, without waiting for the deadline.
  for (int m = 0; m < 4; ++m) w.ready(m, 12.0 + m * 1e-4);
  CHECK(*w.closes_at_s() == Approx(12.0003));
  CHECK(w.close().size() == 4u);
  CHECK_THROWS_AS(w.ready(4, 13.0), Error);
  w.ready(3, 13.0);
  CHECK_THROWS_AS(w.ready(3, 13.0), Error);
}

TEST_CASE("partial reduce: the window stays within its min and max", "[decentralized][rules]") {
  PartialReduceWindow w(3, 1e-3, 1e-4, 4e-3, 0);
  for (int k = 0; k < 10; ++k) {
    w.ready(k % 3, k);
    w.close();
  }
  CHECK(w.window_s() == Approx(4e-3));
  for (int k = 0; k < 100; ++k) {
    w.ready(0, 100 + k);
    w.ready(1, 100 + k);
    w.close();
  }
  CHECK(w.window_s() == Approx(1e-4));
  CHECK_THROWS_AS(PartialReduceWindow(3, 5e-3, 1e-4, 4e-3, 0), Error);
}

TEST_CASE("partial reduce: a full sync is forced after full_sync_every updates",
          "[decentralized][rules]") {
  PartialReduceWindow w(3, 1e-3, 1e-3, 1e-3, 4);
  w.ready(0, 0);
  w.ready(1, 0);
  w.close();  // 2 updates
  CHECK_FALSE(w.full_sync_pending());
  w.ready(2, 1);
  w.ready(0, 1);
  w.close();  // 4 updates: the next window waits for everyone
  CHECK(w.full_sync_pending());
  w.ready(1, 2);
  CHECK_FALSE(w.closes_at_s());  // no deadline while a full sync waits
  w.ready(0, 5);
  CHECK_FALSE(w.closes_at_s());
  w.ready(2, 9);
  CHECK(*w.closes_at_s() == 9);
  CHECK(w.close() == std::vector<int>{0, 1, 2});
  CHECK_FALSE(w.full_sync_pending());
  w.ready(1, 10);
  CHECK(*w.closes_at_s() == Approx(10.001));
}

TEST_CASE("partial reduce: a member that left is not waited for, not even by a full sync",
          "[decentralized][rules]") {
  PartialReduceWindow w(3, 1e-3, 1e-3, 1e-3, 2);
  w.ready(0, 0);
  w.ready(1, 0);
  w.close();  // 2 updates: the next window waits for everyone
  REQUIRE(w.full_sync_pending());
  w.ready(1, 1);
  CHECK_FALSE(w.closes_at_s());  // waits for 0 and 2
  w.leave(2);                    // rank 2's last round is over (it was never ready again)
  CHECK_FALSE(w.closes_at_s());  // still waits for 0
  w.ready(0, 3);
  CHECK(w.all_in());
  CHECK(*w.closes_at_s() == 3);
  CHECK(w.close() == std::vector<int>{0, 1});
  CHECK_FALSE(w.full_sync_pending());  // everyone still running took part
  CHECK_THROWS_AS(w.ready(2, 4), Error);
  w.ready(0, 4);
  CHECK_THROWS_AS(w.leave(0), Error);  // waiting members cannot leave
}

TEST_CASE("partial reduce: groups sharing a baton hold one full sync at a time",
          "[decentralized][rules]") {
  FullSyncBaton baton;
  PartialReduceWindow a(2, 1e-3, 1e-3, 1e-3, 2, &baton);
  PartialReduceWindow b(2, 1e-3, 1e-3, 1e-3, 2, &baton);
  for (auto* w : {&a, &b}) {
    w->ready(0, 0);
    w->ready(1, 0);
    w->close();  // 2 updates each: both owe a full sync
    REQUIRE(w->full_sync_pending());
  }
  a.ready(0, 1);  // a opens first: its window is the full sync
  CHECK(a.full_sync_open());
  CHECK_FALSE(a.closes_at_s());
  b.ready(1, 2);  // b's window cannot take the baton: an ordinary one, with a deadline
  CHECK_FALSE(b.full_sync_open());
  CHECK(b.full_sync_pending());
  CHECK(*b.closes_at_s() == Approx(2.001));
  CHECK(b.close() == std::vector<int>{1});
  a.ready(1, 3);
  CHECK(a.close() == std::vector<int>{0, 1});
  CHECK_FALSE(a.full_sync_pending());
  CHECK_FALSE(baton.held());
  b.ready(0, 4);  // the baton is free again: b's full sync happens now
  CHECK(b.full_sync_open());
  CHECK_FALSE(b.closes_at_s());
  b.ready(1, 5);
  CHECK(*b.closes_at_s() == 5);
  b.close();
  CHECK_FALSE(b.full_sync_pending());
}

TEST_CASE("partial reduce: a window destroyed while holding the full sync frees the baton",
          "[decentralized][rules]") {
  FullSyncBaton baton;
  {
    PartialReduceWindow a(2, 1e-3, 1e-3, 1e-3, 1, &baton);
    a.ready(0, 0);
    a.close();
    a.ready(0, 1);
    REQUIRE(a.full_sync_open());
    CHECK(baton.held());
  }
  CHECK_FALSE(baton.held());
}

}  // namespace dynamic_rules_test
