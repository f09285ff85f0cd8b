// ops.csv read back (sim/results/ops_csv_reader.hpp): what the writer wrote for the hand-built
// Program comes back row for row, quoted labels included; bad files name the file and line.
#include "sim/results/ops_csv_reader.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "sim/common/error.hpp"
#include "sim/results/csv_line.hpp"
#include "sim/results/ops_csv_writer.hpp"
#include "tests/results/tiny_program.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace ops_csv_reader_test {

using namespace geotrain;

namespace {
void write_text(const std::filesystem::path& path, const std::string& text) { std::ofstream(path) << text; }
}  // namespace

TEST_CASE("split_csv_line keeps quoted commas and doubled quotes", "[results]") {
  const auto f = results::split_csv_line(R"(1,"a, ""b""",,x)");
  REQUIRE(f.size() == 4);
  CHECK(f[1] == "a, \"b\"");
  CHECK(f[2].empty());
  CHECK(f[3] == "x");
}

TEST_CASE("ops.csv written by the writer reads back row for row", "[results]") {
  const Program p = test::tiny_program();
  const auto path = test::scratch_dir("ops_reader") / "ops.csv";
  {
    std::ofstream out(path);
    results::OpsCsvWriter w(out, p, results::TimeFormat::nanoseconds);
    w.add(results::OpRow{0, 2, 1, 0.5, 1.25, std::nullopt, 4096.0});
    w.add(results::OpRow{1, 2, 2, 1.25, 2.000000001, std::nullopt, std::nullopt});
  }
  const auto rows = results::read_ops_csv(path.string());
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].rank == 0);
  CHECK(rows[0].iteration == 2);
  CHECK(rows[0].op == 1);
  CHECK(rows[0].type == results::OpType::send);
  CHECK(rows[0].label == "say \"hi\", x");
  CHECK(rows[0].nonblocking);
  CHECK(rows[0].duration_s() == Approx(0.75));
  CHECK(rows[0].peer == 1);
  CHECK(rows[1].type == results::OpType::collective);
  CHECK(rows[1].group == "dp, world");
  CHECK(rows[1].peer == -1);
  CHECK(rows[1].end_s == 2.000000001);
  CHECK(std::string(results::to_string(rows[1].type)) == "collective");
}

TEST_CASE("ops.csv reader names the file, the missing column and the bad line", "[results]") {
  const auto dir = test::scratch_dir("ops_reader_bad");
  write_text(dir / "short.csv", "rank,iteration\n0,0\n");
  CHECK_THROWS_WITH(results::read_ops_csv((dir / "short.csv").string()),
                    Catch::Contains("short.csv:1: column 'op' missing"));
  write_text(dir / "bad.csv",
             "rank,iteration,op,type,label,nonblocking,start_s,end_s,peer,group\n"
             "0,0,0,compute,x,0,0,1,,\n"
             "0,zero,1,compute,x,0,0,1,,\n");
  CHECK_THROWS_WITH(results::read_ops_csv((dir / "bad.csv").string()),
                    Catch::Contains("bad.csv:3: a number field does not parse"));
  CHECK_THROWS_AS(results::read_ops_csv((dir / "none.csv").string()), InputError);
}

}  // namespace ops_csv_reader_test
