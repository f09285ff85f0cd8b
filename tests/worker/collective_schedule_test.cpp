#include <catch2/catch.hpp>

#include <vector>

#include "sim/common/error.hpp"
#include "sim/program/butterfly_parts.hpp"
#include "sim/program/collective_schedule.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace collective_schedule_test {

using namespace geotrain;

namespace {

using Buffers = std::vector<std::vector<double>>;

// Runs every member's schedule in lock step on in-memory buffers, the way the worker does with
// tensors: all sends of a step read the buffers before any receive of that step lands.
// Checks that every send has exactly one matching receive (same step, peers, range length).
Buffers run(CollectiveKind kind, CollectiveAlgorithm algo, int n, int root, Buffers buf,
            const std::vector<double>& fractions = {}) {
  std::vector<std::vector<CollectiveStep>> sched;
  std::size_t steps = 0;
  for (int p = 0; p < n; ++p) {
    sched.push_back(collective_schedule(kind, algo, n, p, root, buf[0].size(), fractions));
    steps = std::max(steps, sched.back().size());
  }
  for (const auto& member : sched) REQUIRE(member.size() == steps);  // aligned step indices
  for (std::size_t s = 0; s < steps; ++s) {
    const Buffers before = buf;
    for (int p = 0; p < n; ++p) {
      if (s >= sched[p].size()) continue;
      for (const auto& r : sched[p][s].recvs) {
        const auto& peer = sched[r.peer];
        REQUIRE(s < peer.size());
        int matches = 0;
        for (const auto& t : peer[s].sends) {
          if (t.peer != p) continue;
          ++matches;
          REQUIRE(t.count == r.count);
          for (std::size_t i = 0; i < r.count; ++i) {
            const double v = before[r.peer][t.offset + i];
            auto& dst = buf[p][r.offset + i];
            dst = sched[p][s].reduce ? dst + v : v;
          }
        }
        REQUIRE(matches == 1);
      }
    }
  }
  return buf;
}

Buffers initial(int n, std::size_t count) {
  Buffers b(n, std::vector<double>(count));
  for (int p = 0; p < n; ++p)
    for (std::size_t i = 0; i < count; ++i) b[p][i] = (p + 1) * 1000.0 + static_cast<double>(i);
  return b;
}

double sum_at(const Buffers& b, std::size_t i) {
  double s = 0;
  for (const auto& v : b) s += v[i];
  return s;
}

}  // namespace

TEST_CASE("all-reduce algorithms leave the sum everywhere", "[worker][collective_schedule]") {
  using A = CollectiveAlgorithm;
  for (auto algo : {A::ring, A::tree, A::direct, A::halving_doubling, A::butterfly})
    for (int n : {1, 2, 3, 4, 5, 8})
      for (std::size_t count : {0, 1, 7, 64}) {
        if (algo == A::halving_doubling && (n & (n - 1))) continue;
        const int root = algo == A::halving_doubling ? 0 : n / 2;
        const auto in = initial(n, count);
        const auto out = run(CollectiveKind::allreduce, algo, n, root, in);
        INFO("algorithm " << static_cast<int>(algo) << " n " << n << " count " << count);
        for (int p = 0; p < n; ++p)
          for (std::size_t i = 0; i < count; ++i) REQUIRE(out[p][i] == sum_at(in, i));
      }
}

TEST_CASE("butterfly with uneven parts: the sum everywhere, each member sends (1 - f_p) + (n - 1) f_p",
          "[worker][collective_schedule][butterfly]") {
  const std::vector<std::vector<double>> parts{{0.5, 0.5}, {0.7, 0.2, 0.1}, {0.4, 0.3, 0.2, 0.1, 0.0}};
  for (const auto& f : parts) {
    const int n = static_cast<int>(f.size());
    for (std::size_t count : {0, 1, 7, 1000}) {
      INFO("n " << n << " count " << count);
      const auto in = initial(n, count);
      const auto out = run(CollectiveKind::allreduce, CollectiveAlgorithm::butterfly, n, 0, in, f);
      for (int p = 0; p < n; ++p)
        for (std::size_t i = 0; i < count; ++i) REQUIRE(out[p][i] == sum_at(in, i));
      // Reduce-scatter alone: member p holds the sum in its own part.
      const auto rs = run(CollectiveKind::reduce_scatter, CollectiveAlgorithm::butterfly, n, 0, in, f);
      std::size_t covered = 0;
      for (int p = 0; p < n; ++p) {
        const Transfer part = part_range(count, f, p);
        CHECK(part.offset == covered);
        covered += part.count;
        for (std::size_t i = part.offset; i < part.offset + part.count; ++i) REQUIRE(rs[p][i] == sum_at(in, i));
        const auto steps = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::butterfly,
                                               n, p, 0, count, f);
        CHECK(steps.size() == 2);
        CHECK(elements_sent(steps) == count - part.count + static_cast<std::size_t>(n - 1) * part.count);
      }
      CHECK(covered == count);
    }
  }
  CHECK_THROWS_WITH(collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::butterfly, 3, 0,
                                        0, 10, {0.5, 0.5}),
                    "collective schedule: 2 part fractions for a group of 3");
  CHECK_THROWS_AS(collective_schedule(CollectiveKind::broadcast, CollectiveAlgorithm::butterfly, 3, 0, 0, 10),
                  InputError);
}

TEST_CASE("ring all-reduce sends 2(n-1)/n of the buffer per member", "[worker][collective_schedule]") {
  for (int n : {2, 3, 4, 8}) {
    const std::size_t count = 840;  // divisible by every n above
    for (int p = 0; p < n; ++p) {
      const auto s = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::ring, n, p,
                                         0, count);
      CHECK(s.size() == static_cast<std::size_t>(2 * (n - 1)));
      CHECK(elements_sent(s) == 2 * (n - 1) * count / n);
    }
  }
  // Direct: the root sends the full buffer to n-1 members; the others send it once.
  const auto root = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::direct, 4,
                                        0, 0, 100);
  CHECK(elements_sent(root) == 300);
}

TEST_CASE("reduce-scatter then all-gather equals an all-reduce", "[worker][collective_schedule]") {
  for (auto algo : {CollectiveAlgorithm::ring, CollectiveAlgorithm::direct})
    for (int n : {2, 3, 5}) {
      const auto in = initial(n, 11);
      auto mid = run(CollectiveKind::reduce_scatter, algo, n, 0, in);
      for (int p = 0; p < n; ++p) {  // member p owns chunk p
        const auto c = chunk_range(11, n, p);
        for (std::size_t i = c.offset; i < c.offset + c.count; ++i) CHECK(mid[p][i] == sum_at(in, i));
      }
      const auto out = run(CollectiveKind::allgather, algo, n, 0, mid);
      for (int p = 0; p < n; ++p)
        for (std::size_t i = 0; i < 11; ++i) CHECK(out[p][i] == sum_at(in, i));
    }
}

TEST_CASE("rooted collectives", "[worker][collective_schedule]") {
  for (auto algo : {CollectiveAlgorithm::direct, CollectiveAlgorithm::tree})
    for (int n : {2, 3, 6})
      for (int root = 0; root < n; ++root) {
        const auto in = initial(n, 5);
        const auto reduced = run(CollectiveKind::gather, algo, n, root, in);
        for (std::size_t i = 0; i < 5; ++i) CHECK(reduced[root][i] == sum_at(in, i));
        const auto bcast = run(CollectiveKind::scatter, algo, n, root, in);
        for (int p = 0; p < n; ++p) CHECK(bcast[p] == in[root]);
      }
}

TEST_CASE("unsupported combinations are input errors", "[worker][collective_schedule]") {
  CHECK_THROWS_WITH(collective_schedule(CollectiveKind::allreduce,
                                        CollectiveAlgorithm::halving_doubling, 3, 0, 0, 10),
                    "collective allreduce with algorithm halving_doubling over 3 members: "
                    "halving-doubling needs a power-of-2 group");
  CHECK_THROWS_AS(collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::library, 2, 0,
                                      0, 10),
                  InputError);
  CHECK(collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::library, 1, 0, 0, 10)
            .empty());
}

}  // namespace collective_schedule_test
