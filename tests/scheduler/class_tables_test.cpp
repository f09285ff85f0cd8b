// The class-table fast paths give the same bits as the dense N x N ones: group DP costs
// (CostModel) and DT-FM's gain (DtfmClassGain against DtfmGain), so the search takes the same
// path whichever is used.
#include <catch2/catch.hpp>

#include <random>

#include "sim/scheduler/cost_model.hpp"
#include "sim/scheduler/cyclic_local_search.hpp"
#include "sim/scheduler/dtfm_class_gain.hpp"
#include "sim/scheduler/dtfm_gain.hpp"
#include "sim/scheduler/search.hpp"
#include "sim/topology/dtfm_cases.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace class_tables_test {

using namespace geotrain;

namespace {

// group_dp_cost_s as the dense formula, written out: members in order, j != i skipped.
double dense_group_dp(const CostModel& m, const std::vector<int>& group) {
  double worst = 0;
  for (int i : group) {
    double c = 0;
    for (int j : group)
      if (j != i) c += m.dp_pair_s(i, j);
    worst = std::max(worst, c);
  }
  return worst;
}

void require_same(const GainTable& a, const GainTable& b) {
  REQUIRE(a.g_i == b.g_i);
  REQUIRE(a.g_ij == b.g_ij);
  REQUIRE(a.move_v == b.move_v);
  REQUIRE(a.move_to == b.move_to);
}

}  // namespace

TEST_CASE("class-table group DP costs equal the dense sums bit for bit", "[scheduler][classes]") {
  for (int dtfm_case : {1, 3, 4, 5}) {
    const CostModel m(make_dtfm_case(dtfm_case, 64), 4, 16, 0.65e9, 0.4712e9);
    REQUIRE(m.classes() > 0);
    std::mt19937_64 rng(static_cast<std::uint64_t>(dtfm_case));
    for (int trial = 0; trial < 50; ++trial) {
      const Partition p = m.partition_of(random_labels(4, 16, rng));
      for (const auto& g : p) REQUIRE(m.group_dp_cost_s(g) == dense_group_dp(m, g));
    }
    // Runs of one class (ascending ids in a regional layout) and single members.
    std::vector<int> all(64);
    for (int v = 0; v < 64; ++v) all[static_cast<std::size_t>(v)] = v;
    REQUIRE(m.group_dp_cost_s(all) == dense_group_dp(m, all));
    REQUIRE(m.group_dp_cost_s({7}) == 0);
  }
}

TEST_CASE("DT-FM's gain on class tables equals the dense gain through moves and locks", "[scheduler][classes]") {
  for (int dtfm_case : {3, 4, 5}) {
    const CostModel m(make_dtfm_case(dtfm_case, 64), 8, 8, 0.65e9, 0.4712e9);
    REQUIRE(m.classes() > 0);
    std::mt19937_64 rng(40 + static_cast<std::uint64_t>(dtfm_case));
    DtfmGain dense(m);
    DtfmClassGain by_class(m);
    GainTable a, b;
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<int> labels = random_labels(8, 8, rng);
      std::vector<char> locked(64, 0);
      dense.reset(labels);
      by_class.reset(labels);
      for (int step = 0; step < 60; ++step) {
        dense.compute(locked, a);
        by_class.compute(locked, b);
        require_same(a, b);
        const int v = draw(rng, 64), to = draw(rng, 8);
        if (labels[static_cast<std::size_t>(v)] != to) {
          dense.move(v, labels[static_cast<std::size_t>(v)], to);
          by_class.move(v, labels[static_cast<std::size_t>(v)], to);
          labels[static_cast<std::size_t>(v)] = to;
        }
        if (step % 3 == 0) locked[static_cast<std::size_t>(draw(rng, 64))] = 1;  // locks only grow
      }
    }
    // And the whole local search ends in the same partition.
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<int> x = random_labels(8, 8, rng), y = x;
      CyclicLocalSearch(8, 64, dense).run(x);
      CyclicLocalSearch(8, 64, by_class).run(y);
      REQUIRE(x == y);
    }
  }
}

}  // namespace class_tables_test
