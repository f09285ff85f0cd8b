// The engine against sim/program/closed_forms.hpp (the yardsticks shared with tests/program):
// tree, halving-doubling, direct exchange and heterogeneous rings, within 0.1%.
#include <catch2/catch.hpp>

#include "sim/program/closed_forms.hpp"
#include "sim_child.hpp"
#include "test_programs.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace program_closed_forms_test {

using namespace geotrain;
using namespace geotrain::test;

namespace {

std::vector<double> uneven(int n, bool delay) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      v.push_back(delay ? 0.001 * (1 + (i * 7 + j * 3) % 11) : 1e8 * (1 + (i * 5 + j * 2) % 7) / 4.0);
  return v;
}

struct Net {
  int n;
  std::vector<double> delay, bw;
  Scenario scenario() const { return matrix_scenario(n, delay, bw); }
  LinkOf link() const {
    return [this](int a, int b) {
      const auto k = static_cast<std::size_t>(a * n + b);
      return LinkTime{delay[k], bw[k]};
    };
  }
};

double run_one(const Net& net, CollectiveKind kind, CollectiveAlgorithm a, double bytes, int root = 0) {
  Program p = empty_program(net.n);
  for (auto& ops : p.ranks) ops.push_back(collective(kind, bytes, a, root));
  const auto r = simulate_in_child(net.scenario(), p, {}, tflop_seconds());
  REQUIRE(r.ok);
  return r.makespan();
}

}  // namespace

TEST_CASE("ring all-reduce on uneven links matches closed_forms", "[sim][closed-form]") {
  for (int n : {3, 6}) {
    const Net net{n, uneven(n, true), uneven(n, false)};
    std::vector<LinkTime> hops;
    for (int i = 0; i < n; ++i) hops.push_back(net.link()(i, (i + 1) % n));
    CHECK(run_one(net, CollectiveKind::allreduce, CollectiveAlgorithm::ring, 30e6) ==
          Approx(ring_allreduce_time(hops, 30e6)).epsilon(1e-3));
  }
}

TEST_CASE("binomial tree all-reduce matches closed_forms", "[sim][closed-form]") {
  for (int n : {2, 5, 8}) {
    INFO("N = " << n);
    const Net net{n, uneven(n, true), uneven(n, false)};
    CHECK(run_one(net, CollectiveKind::allreduce, CollectiveAlgorithm::tree, 20e6, 1) ==
          Approx(tree_allreduce_time(n, 1, 20e6, net.link())).epsilon(1e-3));
  }
}

TEST_CASE("halving-doubling all-reduce matches closed_forms", "[sim][closed-form]") {
  for (int n : {2, 4, 8}) {
    INFO("N = " << n);
    const auto cells = static_cast<std::size_t>(n * n);
    const Net uniform{n, std::vector<double>(cells, 0.01), std::vector<double>(cells, 1.25e8)};
    CHECK(run_one(uniform, CollectiveKind::allreduce, CollectiveAlgorithm::halving_doubling, 40e6) ==
          Approx(halving_doubling_allreduce_time(n, 40e6, uniform.link())).epsilon(1e-3));
    const Net net{n, uneven(n, true), uneven(n, false)};
    CHECK(run_one(net, CollectiveKind::allreduce, CollectiveAlgorithm::halving_doubling, 40e6) ==
          Approx(halving_doubling_allreduce_time(n, 40e6, net.link())).epsilon(1e-3));
  }
}

TEST_CASE("direct reduce-scatter (sharded parameter server) matches closed_forms", "[sim][closed-form]") {
  const int n = 5;
  const Net net{n, uneven(n, true), uneven(n, false)};
  CHECK(run_one(net, CollectiveKind::reduce_scatter, CollectiveAlgorithm::direct, 25e6) ==
        Approx(direct_exchange_time(n, 25e6, net.link())).epsilon(1e-3));
  CHECK(run_one(net, CollectiveKind::allreduce, CollectiveAlgorithm::direct, 25e6, 2) ==
        Approx(direct_gather_time(n, 2, 25e6, net.link()) + direct_scatter_time(n, 2, 25e6, net.link()))
            .epsilon(1e-3));
}

TEST_CASE("a zero-byte message takes the link's latency", "[sim][closed-form]") {
  Program p = empty_program(2);
  p.ranks[0].push_back(send(1, 0, 1));
  p.ranks[1].push_back(recv(0, 0, 1));
  const auto r = simulate_in_child(uniform_scenario(2, 0.042, 1e8), p, {}, tflop_seconds());
  REQUIRE(r.ok);
  CHECK(r.makespan() == Approx(0.042).epsilon(1e-3));
}


TEST_CASE("butterfly all-reduce with uneven parts on uneven links matches closed_forms",
          "[sim][closed-form][butterfly]") {
  for (const auto& f : std::vector<std::vector<double>>{{0.25, 0.25, 0.25, 0.25},
                                                        {0.4, 0.3, 0.2, 0.1},
                                                        {0.5, 0.1, 0.0, 0.15, 0.25}}) {
    const int n = static_cast<int>(f.size());
    INFO("N = " << n);
    const Net net{n, uneven(n, true), uneven(n, false)};
    Program p = empty_program(n);
    p.groups[0].part_fractions = f;
    for (auto& ops : p.ranks) ops.push_back(collective(CollectiveKind::allreduce, 30e6, CollectiveAlgorithm::butterfly));
    const auto r = simulate_in_child(net.scenario(), p, {}, tflop_seconds());
    REQUIRE(r.ok);
    CHECK(r.makespan() == Approx(butterfly_allreduce_time(f, 30e6, net.link())).epsilon(1e-3));
  }
}

}  // namespace program_closed_forms_test
