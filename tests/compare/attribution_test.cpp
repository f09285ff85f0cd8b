#include "sim/compare/attribution.hpp"

#include <catch2/catch.hpp>

#include "run_files.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace attribution_test {

using namespace geotrain;
using namespace geotrain::compare;

namespace {

std::vector<results::OpRecord> two_ranks() {
  const auto dir = test::temp_dir("attribution");
  std::string csv = test::ops_header();
  // rank 0: compute, blocking send to 1 (receiver already waiting), collective entered first.
  csv += test::op_line(0, 0, 0, "compute", false, 0, 1);
  csv += test::op_line(0, 0, 1, "send", false, 1, 1.5, 1);
  csv += test::op_line(0, 0, 2, "collective", false, 1.5, 3, -1, "g");
  csv += test::op_line(0, 1, 0, "compute", false, 3, 10);  // another iteration
  // rank 1: receive posted at 0.2 (sender starts at 1), collective entered last, and a
  // nonblocking send that blocks nothing.
  csv += test::op_line(1, 0, 0, "recv", false, 0.2, 1.6, 0);
  csv += test::op_line(1, 0, 1, "send", true, 0, 2.5, 0);
  csv += test::op_line(1, 0, 2, "collective", false, 2.0, 3.0, -1, "g");
  test::write_file(dir + "/ops.csv", csv);
  return results::read_ops_csv(dir + "/ops.csv");
}

}  // namespace

TEST_CASE("waiting: receive until its send started, collective until the last member entered", "[compare]") {
  const auto rows = two_ranks();
  const auto w = waiting_of_ops(rows);
  REQUIRE(w.size() == rows.size());
  CHECK(w[0] == 0);                // compute
  CHECK(w[1] == 0);                // send: its receive was posted before
  CHECK(w[2] == Approx(0.5));      // rank 0 entered at 1.5, rank 1 at 2.0
  CHECK(w[4] == Approx(0.8));      // recv at 0.2, send started at 1.0
  CHECK(w[5] == 0);                // nonblocking
  CHECK(w[6] == 0);                // last to enter
}

TEST_CASE("attribute: split per rank and iteration sums to the iteration time", "[compare]") {
  const auto s = attribute(two_ranks(), {0}, 3.0);
  // rank 0: compute 1, communication 0.5 + 1.0, waiting 0.5, other 0
  // rank 1: compute 0, communication 0.6 + 1.0, waiting 0.8, other 0.6
  CHECK(s.compute_s == Approx(0.5));
  CHECK(s.communication_s == Approx(1.55));
  CHECK(s.waiting_s == Approx(0.65));
  CHECK(s.other_s == Approx(0.3));
  CHECK(s.compute_s + s.communication_s + s.waiting_s + s.other_s == Approx(3.0));
}

TEST_CASE("match_ops pairs (rank, op) across runs with medians over iterations", "[compare]") {
  const auto dir = test::temp_dir("match");
  test::write_file(dir + "/p.csv", test::ops_header() + test::op_line(0, 0, 0, "compute", false, 0, 1) +
                                       test::op_line(0, 1, 0, "compute", false, 1, 4) +
                                       test::op_line(0, 2, 0, "compute", false, 4, 6) +
                                       test::op_line(0, 0, 1, "send", true, 0, 9, 1));
  test::write_file(dir + "/m.csv", test::ops_header() + test::op_line(0, 0, 0, "compute", false, 0, 100) +
                                       test::op_line(0, 1, 0, "compute", false, 100, 101.5) +
                                       test::op_line(0, 1, 1, "send", true, 101, 102, 1) +
                                       test::op_line(0, 1, 2, "wait", false, 102, 103));
  const auto d = match_ops(results::read_ops_csv(dir + "/p.csv"), {0, 1, 2}, results::read_ops_csv(dir + "/m.csv"), {1});
  REQUIRE(d.size() == 3);
  CHECK(d[0].predicted_s == Approx(2));   // median of 1, 3, 2
  CHECK(d[0].measured_s == Approx(1.5));  // iteration 0 (warm-up) left out
  CHECK(d[0].matched);
  CHECK(d[1].nonblocking);
  CHECK_FALSE(d[2].matched);               // only measured
  const auto by_kind = difference_by_kind(d);
  CHECK(by_kind.at("compute") == Approx(0.5));
  CHECK(by_kind.count("send") == 0);       // nonblocking ops block nothing
  CHECK(by_kind.count("wait") == 0);       // unmatched
}

}  // namespace attribution_test
