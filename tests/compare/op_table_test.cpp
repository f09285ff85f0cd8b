#include "sim/compare/op_table.hpp"

#include <catch2/catch.hpp>

#include "run_files.hpp"
#include "sim/common/error.hpp"

using namespace geotrain;
using namespace geotrain::compare;

TEST_CASE("split_csv_line keeps quoted commas and doubled quotes", "[compare]") {
  const auto f = split_csv_line(R"(1,"a, ""b""",,x)");
  REQUIRE(f.size() == 4);
  CHECK(f[1] == "a, \"b\"");
  CHECK(f[2].empty());
  CHECK(f[3] == "x");
}

TEST_CASE("read_ops_csv reads both executors' columns", "[compare]") {
  const auto dir = test::temp_dir("optable");
  test::write_file(dir + "/ops.csv", test::ops_header() + test::op_line(1, 2, 3, "recv", true, 0.5, 1.25, 0) +
                                         test::op_line(0, 0, 0, "collective", false, 0, 1, -1, "dp 0"));
  const auto rows = read_ops_csv(dir + "/ops.csv");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].rank == 1);
  CHECK(rows[0].iteration == 2);
  CHECK(rows[0].op == 3);
  CHECK(rows[0].kind == OpKind::recv);
  CHECK(rows[0].nonblocking);
  CHECK(rows[0].label == "recv 3, x");
  CHECK(rows[0].duration_s() == Approx(0.75));
  CHECK(rows[0].peer == 0);
  CHECK(rows[1].group == "dp 0");
  CHECK(rows[1].peer == -1);
}

TEST_CASE("read_ops_csv names the file and the missing column", "[compare]") {
  const auto dir = test::temp_dir("optable_bad");
  test::write_file(dir + "/ops.csv", "rank,iteration\n0,0\n");
  CHECK_THROWS_WITH(read_ops_csv(dir + "/ops.csv"), Catch::Contains("column 'op' missing"));
  CHECK_THROWS_AS(read_ops_csv(dir + "/none.csv"), InputError);
}
