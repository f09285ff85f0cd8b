// The cost model against the reference formulas, computed independently (reference_model.hpp)
// in the reference's units (ms, Gbit/s, GB): identity, stride and one-device-moved partitions.
#include <catch2/catch.hpp>

#include <numeric>
#include <random>

#include "reference_model.hpp"
#include "sim/scheduler/cost_model.hpp"
#include "sim/topology/dtfm_cases.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace cost_model_test {

using namespace geotrain;

namespace {

constexpr double kG_GB = 0.65, kA_GB = 0.4712;

reference::Net reference_net(const Topology& t) {
  reference::Net net{t.device_count(), {}, {}};
  for (int i = 0; i < net.n; ++i)
    for (int j = 0; j < net.n; ++j) {
      net.d_ms.push_back(i == j ? 0 : t.delay_s(i, j) * 1e3);
      net.b_gbps.push_back(i == j ? 1 : t.bandwidth_Bps(i, j) * 8 / 1e9);
    }
  return net;
}

Partition identity_groups(int stages, int replicas) {  // group g = devices g*K .. g*K+K-1
  Partition p(static_cast<std::size_t>(stages));
  for (int g = 0; g < stages; ++g)
    for (int r = 0; r < replicas; ++r) p[static_cast<std::size_t>(g)].push_back(g * replicas + r);
  return p;
}

Partition stride_groups(int stages, int replicas) {  // group g = devices g, g+S, g+2S, ...
  Partition p(static_cast<std::size_t>(stages));
  for (int g = 0; g < stages; ++g)
    for (int r = 0; r < replicas; ++r) p[static_cast<std::size_t>(g)].push_back(r * stages + g);
  return p;
}

Partition one_moved(Partition p) {  // swap one device between groups 0 and last
  std::swap(p.front()[1], p.back()[2]);
  return p;
}

void check_against_reference(const CostModel& m, const reference::Net& net, const Partition& p) {
  double ref_pp = 0;
  const double ref_total = reference::total_cost(net, p, kG_GB, kA_GB, &ref_pp);
  const double ref_dp = reference::dp_cost(net, p, kG_GB);
  const CostBreakdown c = m.evaluate(p);
  CHECK(c.dp_cost_s == Approx(ref_dp).epsilon(1e-9));
  CHECK(c.pp_cost_s == Approx(ref_pp).epsilon(1e-9));
  CHECK(c.total_cost_s == Approx(ref_total).epsilon(1e-9));
  // The realised placement, scored as placed, reaches the same score.
  CHECK(m.evaluate_fixed(m.realise(p, c)).total_cost_s == Approx(ref_total).epsilon(1e-9));
}

}  // namespace

TEST_CASE("DT-FM case 5 costs equal the reference formulas", "[scheduler][cost]") {
  const Topology t = make_dtfm_case(5, 64);
  const CostModel m(t, 8, 8, kG_GB * 1e9, kA_GB * 1e9);
  const reference::Net net = reference_net(t);
  SECTION("identity") { check_against_reference(m, net, identity_groups(8, 8)); }
  SECTION("stride") { check_against_reference(m, net, stride_groups(8, 8)); }
  SECTION("one device moved") { check_against_reference(m, net, one_moved(identity_groups(8, 8))); }
  SECTION("identity is all-in-one-city groups: DP is the intra-city ring") {
    // 7 peers x 2 x (5 ms + 0.65 GB x 8 / (2 Gbit/s x 8)) = 4.62 s
    CHECK(m.evaluate(identity_groups(8, 8)).dp_cost_s == Approx(7 * 2 * (0.005 + 0.65 * 8 / 16)).epsilon(1e-12));
  }
}

TEST_CASE("cost model on a hand-built asymmetric-size network (4 stages x 3 replicas)", "[scheduler][cost]") {
  // Test-owned delays (ms) and bandwidths (Gbit/s); symmetric pairs as DT-FM's matrices are.
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> delay(1, 200), bw(0.3, 10);
  const int n = 12;
  reference::Net net{n, std::vector<double>(n * n, 0), std::vector<double>(n * n, 1)};
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      net.d_ms[static_cast<std::size_t>(i * n + j)] = net.d_ms[static_cast<std::size_t>(j * n + i)] = delay(rng);
      net.b_gbps[static_cast<std::size_t>(i * n + j)] = net.b_gbps[static_cast<std::size_t>(j * n + i)] = bw(rng);
    }
  std::vector<double> d_s, b_Bps;
  for (int i = 0; i < n * n; ++i) {
    d_s.push_back(net.d_ms[static_cast<std::size_t>(i)] / 1e3);
    b_Bps.push_back(net.b_gbps[static_cast<std::size_t>(i)] * 1e9 / 8);
  }
  const Topology t = Topology::matrix({"all"}, std::vector<int>(n, 0), d_s, b_Bps);
  const CostModel m(t, 4, 3, kG_GB * 1e9, kA_GB * 1e9);
  check_against_reference(m, net, identity_groups(4, 3));
  check_against_reference(m, net, stride_groups(4, 3));
  check_against_reference(m, net, one_moved(stride_groups(4, 3)));
}

TEST_CASE("a placement scored as placed uses the given pairing and order", "[scheduler][cost]") {
  const Topology t = make_dtfm_case(4, 64);
  const CostModel m(t, 8, 8, kG_GB * 1e9, kA_GB * 1e9);
  const Assignment a = identity_assignment(8, 8);  // pipeline r = devices 8r .. 8r+7 (one region)
  const CostBreakdown c = m.evaluate_fixed(a);
  CHECK(c.pp_cost_s == Approx(2 * 7 * (0.005 + kA_GB * 8 / 2)).epsilon(1e-12));
  CHECK(c.dp_cost_s == Approx(reference::dp_cost(reference_net(t), a.stage_groups(), kG_GB)).epsilon(1e-9));
}

TEST_CASE("class-count matching equals device matching on regional networks", "[scheduler][cost]") {
  std::mt19937_64 rng(17);
  for (int c : {1, 2, 3, 4, 5}) {
    const Topology t = make_dtfm_case(c, 64);
    const CostModel m(t, 4, 16, kG_GB * 1e9, kA_GB * 1e9);
    for (int trial = 0; trial < 30; ++trial) {
      std::vector<int> perm(64);
      std::iota(perm.begin(), perm.end(), 0);
      for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng() % i]);
      const std::vector<int> x(perm.begin(), perm.begin() + 16), y(perm.begin() + 16, perm.begin() + 32);
      std::vector<int> match;
      const double by_device = m.group_pair_cost_s(x, y, &match);  // `match` forces device level
      REQUIRE(m.group_pair_cost_s(x, y) == by_device);
    }
  }
}

}  // namespace cost_model_test
