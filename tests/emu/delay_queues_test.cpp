// The delayer's due-time structure: per-queue FIFOs released as batch-verdict prefixes.
#include <catch2/catch.hpp>

#include <tuple>

#include "emu/net/delayer/delay_queues.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace delay_queues_test {

using geotrain::emu::delayer::DelayQueues;

namespace {

using Release = std::tuple<int, std::uint32_t, std::size_t>;

std::vector<Release> release_at(DelayQueues& q, std::int64_t now) {
  std::vector<Release> out;
  q.release_due(now, [&](int queue, std::uint32_t id, std::size_t n) { out.emplace_back(queue, id, n); });
  return out;
}

}  // namespace

TEST_CASE("packets leave after exactly their queue's delay - as FIFO prefixes", "[delayer]") {
  DelayQueues q;
  q.add_queue(1, 5'000'000);
  q.add_queue(7, 67'000'000);
  CHECK(q.next_due_ns() == DelayQueues::kNever);
  q.push(1, 10, 0);
  q.push(7, 3, 1'000'000);
  q.push(1, 11, 2'000'000);
  q.push(1, 12, 9'000'000);
  CHECK(q.held() == 4);
  CHECK(q.next_due_ns() == 5'000'000);
  CHECK(release_at(q, 4'999'999).empty());
  CHECK(release_at(q, 7'000'000) == std::vector<Release>{{1, 11, 2}});  // ids 10 and 11
  CHECK(q.next_due_ns() == 14'000'000);
  CHECK(release_at(q, 68'000'000) == std::vector<Release>{{1, 12, 1}, {7, 3, 1}});
  CHECK(q.held() == 0);
  CHECK(q.released() == 4);
  CHECK(q.max_held() == 4);
  // Lateness: 0, 0 (due 7 ms, released 7 ms), 54 ms (due 14 ms), 0 (due 68 ms).
  CHECK(q.lateness_max_ns() == 54'000'000);
}

TEST_CASE("a queue grows past its initial ring without reordering", "[delayer]") {
  DelayQueues q;
  q.add_queue(0, 100);
  for (std::uint32_t id = 0; id < 1000; ++id) q.push(0, id, id);
  // Release the first 500 (due 100..599), then the rest.
  CHECK(release_at(q, 599) == std::vector<Release>{{0, 499, 500}});
  for (std::uint32_t id = 1000; id < 1300; ++id) q.push(0, id, id);
  CHECK(release_at(q, 1'000'000) == std::vector<Release>{{0, 1299, 800}});
}

TEST_CASE("bad queue definitions are refused", "[delayer]") {
  DelayQueues q;
  CHECK_THROWS_AS(q.add_queue(70000, 1), std::invalid_argument);
  CHECK_THROWS_AS(q.add_queue(1, -1), std::invalid_argument);
  q.add_queue(1, 1);
  CHECK_THROWS_AS(q.add_queue(1, 2), std::invalid_argument);
}

TEST_CASE("a packet stamped earlier than the one ahead of it is not due before that one", "[delayer]") {
  // With kernel arrival stamps, a packet read without a stamp (arrival = read time) can precede a
  // stamped one whose arrival is earlier; a batch verdict releases a FIFO prefix, so the later
  // packet must wait for the earlier one's due time rather than hold it back or overtake it.
  DelayQueues q;
  q.add_queue(2, 10'000'000);
  q.push(2, 1, 3'000'000);  // due 13 ms
  q.push(2, 2, 1'000'000);  // stamped 1 ms: due 11 ms on its own, clamped to 13 ms
  q.push(2, 3, 4'000'000);  // due 14 ms
  CHECK(q.next_due_ns() == 13'000'000);
  CHECK(release_at(q, 12'999'999).empty());
  CHECK(release_at(q, 13'000'000) == std::vector<Release>{{2, 2, 2}});
  CHECK(release_at(q, 14'000'000) == std::vector<Release>{{2, 3, 1}});
}

TEST_CASE("the smallest delay bounds how long the delayer may leave arrivals unread", "[delayer]") {
  DelayQueues q;
  CHECK(q.min_delay_ns() == DelayQueues::kNever);
  q.add_queue(0, 67'000'000);
  q.add_queue(5, 5'000'000);
  q.add_queue(9, 11'000'000);
  CHECK(q.min_delay_ns() == 5'000'000);
}

}  // namespace delay_queues_test
