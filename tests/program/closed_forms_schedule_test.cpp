// The closed forms against the step structure the executors run (collective_schedule.hpp):
// a small step-level evaluator replays every member's schedule with transfer time
// L + bytes / B per message; a transfer starts when sender and receiver have both reached
// their step, and a step ends when all its transfers have. Random heterogeneous links
// (fixed seed) make sure the closed forms hold beyond the uniform case.
#include <catch2/catch.hpp>
#include <map>
#include <random>

#include "sim/program/closed_forms.hpp"
#include "sim/program/collective_schedule.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace closed_forms_schedule_test {

using namespace geotrain;

namespace {

struct Transfer_ {
  int sender, sender_step, receiver, receiver_step;
  double bytes;
};

double replay(CollectiveKind kind, CollectiveAlgorithm algorithm, int n, int root,
              std::size_t count, const LinkOf& link) {
  std::vector<std::vector<CollectiveStep>> steps;
  for (int p = 0; p < n; ++p)
    steps.push_back(collective_schedule(kind, algorithm, n, p, root, count));
  // Match the k-th send p -> q with q's k-th receive from p.
  std::map<std::pair<int, int>, std::vector<std::pair<int, double>>> sends, recvs;
  for (int p = 0; p < n; ++p)
    for (int s = 0; s < static_cast<int>(steps[static_cast<std::size_t>(p)].size()); ++s) {
      const auto& step = steps[static_cast<std::size_t>(p)][static_cast<std::size_t>(s)];
      for (const auto& t : step.sends)
        sends[{p, t.peer}].emplace_back(s, static_cast<double>(t.count));
      for (const auto& t : step.recvs)
        recvs[{t.peer, p}].emplace_back(s, static_cast<double>(t.count));
    }
  std::vector<Transfer_> transfers;
  for (const auto& [key, list] : sends) {
    const auto& other = recvs.at(key);
    REQUIRE(other.size() == list.size());
    for (std::size_t k = 0; k < list.size(); ++k)
      transfers.push_back({key.first, list[k].first, key.second, other[k].first, list[k].second});
  }
  // start[p][s]: when member p starts step s; iterate to the fixed point (dependencies are
  // acyclic).
  std::vector<std::vector<double>> start(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p)
    start[static_cast<std::size_t>(p)].assign(steps[static_cast<std::size_t>(p)].size() + 1, 0);
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<std::vector<double>> end = start;
    for (const auto& t : transfers) {
      const double begin = std::max(
          start[static_cast<std::size_t>(t.sender)][static_cast<std::size_t>(t.sender_step)],
          start[static_cast<std::size_t>(t.receiver)][static_cast<std::size_t>(t.receiver_step)]);
      const double done = begin + link(t.sender, t.receiver).transfer_s(t.bytes);
      for (auto [p, s] :
           {std::pair{t.sender, t.sender_step}, std::pair{t.receiver, t.receiver_step}}) {
        double& e = end[static_cast<std::size_t>(p)][static_cast<std::size_t>(s)];
        e = std::max(e, done);
      }
    }
    for (int p = 0; p < n; ++p)
      for (std::size_t s = 0; s + 1 < start[static_cast<std::size_t>(p)].size(); ++s) {
        const double next =
            std::max(end[static_cast<std::size_t>(p)][s], start[static_cast<std::size_t>(p)][s]);
        if (next > start[static_cast<std::size_t>(p)][s + 1])
          start[static_cast<std::size_t>(p)][s + 1] = next, changed = true;
      }
  }
  double t = 0;
  for (const auto& s : start) t = std::max(t, s.back());
  return t;
}

// Random one-way delays 1-100 ms and bandwidths 0.3-3 Gbit/s per ordered pair.
LinkOf random_links(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> delay(0.001, 0.1), gbps(0.3, 3);
  std::map<std::pair<int, int>, LinkTime> table;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b) table[{a, b}] = {delay(rng), gbps(rng) * 1e9 / 8};
  return [table](int a, int b) { return table.at({a, b}); };
}

const std::size_t kBytes = 120'000'000;  // divisible by every N used below

}  // namespace

TEST_CASE("ring closed form = replayed ring schedule, heterogeneous links",
          "[program][closed-form][schedule]") {
  for (int n : {2, 3, 5, 8})
    for (unsigned seed : {1u, 2u, 3u}) {
      INFO("N = " << n << " seed " << seed);
      const LinkOf link = random_links(n, seed);
      std::vector<LinkTime> hops;
      for (int p = 0; p < n; ++p) hops.push_back(link(p, (p + 1) % n));
      const auto ring = CollectiveAlgorithm::ring;
      CHECK(replay(CollectiveKind::allreduce, ring, n, 0, kBytes, link) ==
            Approx(ring_allreduce_time(hops, kBytes)).epsilon(1e-9));
      CHECK(replay(CollectiveKind::reduce_scatter, ring, n, 0, kBytes, link) ==
            Approx(ring_reduce_scatter_time(hops, kBytes)).epsilon(1e-9));
      CHECK(replay(CollectiveKind::allgather, ring, n, 0, kBytes, link) ==
            Approx(ring_allgather_time(hops, kBytes)).epsilon(1e-9));
    }
}

TEST_CASE("tree, halving-doubling and direct closed forms = replayed schedules",
          "[program][closed-form][schedule]") {
  for (int n : {2, 3, 5, 8})
    for (unsigned seed : {4u, 5u}) {
      INFO("N = " << n << " seed " << seed);
      const LinkOf link = random_links(n, seed);
      for (int root : {0, n - 1}) {
        CHECK(replay(CollectiveKind::allreduce, CollectiveAlgorithm::tree, n, root, kBytes, link) ==
              Approx(tree_allreduce_time(n, root, kBytes, link)).epsilon(1e-9));
        CHECK(replay(CollectiveKind::gather, CollectiveAlgorithm::direct, n, root, kBytes, link) ==
              Approx(direct_gather_time(n, root, kBytes, link)).epsilon(1e-9));
        CHECK(replay(CollectiveKind::scatter, CollectiveAlgorithm::direct, n, root, kBytes, link) ==
              Approx(direct_scatter_time(n, root, kBytes, link)).epsilon(1e-9));
      }
      const auto direct = CollectiveAlgorithm::direct;
      CHECK(replay(CollectiveKind::reduce_scatter, direct, n, 0, kBytes, link) ==
            Approx(direct_exchange_time(n, kBytes, link)).epsilon(1e-9));
      CHECK(replay(CollectiveKind::allgather, direct, n, 0, kBytes, link) ==
            Approx(direct_exchange_time(n, kBytes, link)).epsilon(1e-9));
      CHECK(replay(CollectiveKind::allreduce, direct, n, 1, kBytes, link) ==
            Approx(direct_gather_time(n, 1, kBytes, link) + direct_scatter_time(n, 1, kBytes, link))
                .epsilon(1e-9));
      if ((n & (n - 1)) == 0)
        CHECK(replay(CollectiveKind::allreduce, CollectiveAlgorithm::halving_doubling, n, 0, kBytes,
                     link) ==
              Approx(halving_doubling_allreduce_time(n, kBytes, link)).epsilon(1e-9));
    }
}

}  // namespace closed_forms_schedule_test
