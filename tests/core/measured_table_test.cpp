// sim/scenario/measured_table.hpp: the bundled table loads whole, rows keep their figures,
// malformed rows are one line each naming file, line and column, and the nearest measured pair.
#include "sim/scenario/measured_table.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "tests/support/remove_at_exit.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace measured_table_test {

using namespace geotrain;

namespace {
const std::string kSource = GEOTRAIN_SOURCE_DIR;
constexpr double kGbps = 1e9 / 8;

// A table file of its own under the temp folder, removed at exit.
std::string write_table(const std::string& name, const std::string& text) {
  const std::string path = test::process_temp_path(name);
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("the bundled skyplane_2022 table loads", "[scenario][measured]") {
  std::vector<std::string> problems;
  const auto t = MeasuredTable::read(kSource + "/scenarios/networks/skyplane_2022.csv",
                                     "skyplane_2022.csv", problems);
  CHECK(problems.empty());
  // 60 regions (20 AWS, 13 Azure, 27 GCP), every ordered pair of them.
  CHECK(t.regions().size() == 60);
  CHECK(t.size() == 60 * 59);
  for (const std::string r : {"aws:us-east-1", "gcp:europe-west4", "azure:westeurope"})
    CHECK(t.knows(r));
  const MeasuredRow* row = t.find("aws:us-east-1", "gcp:europe-west4");
  REQUIRE(row != nullptr);
  CHECK(row->link.delay_s > 0.030);  // the Atlantic: tens of ms one way
  CHECK(row->link.delay_s < 0.060);
  CHECK(row->link.bandwidth_Bps > 0.1 * kGbps);
  CHECK(t.find("aws:us-east-1", "aws:us-east-1") == nullptr);
}

TEST_CASE("a table row keeps its figures and its line", "[scenario][measured]") {
  const std::string path = write_table("measured-rows.csv",
                                       "# comment\nsrc,dst,delay,bandwidth,source\n"
                                       "a:x,b:y,12.5ms,2Gbps,here\n\nb:y,a:x,13ms,1.5Gbps,there\n");
  std::vector<std::string> problems;
  const auto t = MeasuredTable::read(path, "rows.csv", problems);
  REQUIRE(problems.empty());
  const MeasuredRow* row = t.find("a:x", "b:y");
  REQUIRE(row != nullptr);
  CHECK(row->link.delay_s == Approx(0.0125));
  CHECK(row->link.bandwidth_Bps == Approx(2 * kGbps));
  CHECK(row->line == 3);
  CHECK(t.find("b:y", "a:x")->line == 5);
  CHECK(t.regions() == std::vector<std::string>{"a:x", "b:y"});
}

TEST_CASE("malformed table rows are one line each with file, line and column",
          "[scenario][measured]") {
  const std::string path = write_table("measured-bad.csv",
                                       "src,dst,delay,bandwidth\n"
                                       "a:x,b:y,12.5,2Gbps\n"
                                       "a:x,,1ms,20Tbps\n"
                                       "a:x,b:y,1ms\n"
                                       "a:x,c:z,1ms,1Gbps\n"
                                       "a:x,c:z,2ms,1Gbps\n");
  std::vector<std::string> problems;
  MeasuredTable::read(path, "bad.csv", problems);
  CHECK(problems ==
        std::vector<std::string>{
            "bad.csv:2: column 3 (delay) = '12.5': a duration needs a unit (e.g. '11ms')",
            "bad.csv:3: column 2 (dst) = '': empty (expected a region name such as aws:us-east-1)",
            "bad.csv:3: column 4 (bandwidth) = '20Tbps': out of range (expected 1 bps ... 10 Tbps)",
            "bad.csv:4: row has 3 columns (expected 4, as the header on top)",
            "bad.csv:6: row a:x -> c:z: already given on line 5 (expected one row per directed "
            "pair)"});
}

TEST_CASE("a table without the required header is refused", "[scenario][measured]") {
  const std::string path =
      write_table("measured-header.csv", "from,to,delay,bandwidth\na,b,1ms,1Gbps\n");
  std::vector<std::string> problems;
  MeasuredTable::read(path, "h.csv", problems);
  CHECK(problems == std::vector<std::string>{"h.csv:1: header = 'from,to,delay,bandwidth': "
                                             "expected the columns src,dst,delay,bandwidth first"});
}

TEST_CASE("the nearest measured pair: the reverse row, else the closest ends",
          "[scenario][measured]") {
  std::vector<std::string> problems;
  const auto t =
      MeasuredTable::read(kSource + "/tests/measured/three_regions.csv", "t.csv", problems);
  REQUIRE(problems.empty());
  // aws:us-east-1 is 1 ms from gcp:us-east4, which has rows to and from azure:westeurope.
  const MeasuredRow* to = t.nearest("aws:us-east-1", "azure:westeurope");
  REQUIRE(to != nullptr);
  CHECK((to->src == "gcp:us-east4" && to->dst == "azure:westeurope"));
  const MeasuredRow* from = t.nearest("azure:westeurope", "aws:us-east-1");
  REQUIRE(from != nullptr);
  CHECK((from->src == "azure:westeurope" && from->dst == "gcp:us-east4"));
  // A pair measured in the other direction only takes that row.
  const std::string path =
      write_table("measured-oneway.csv", "src,dst,delay,bandwidth\na:x,b:y,5ms,1Gbps\n");
  const auto one_way = MeasuredTable::read(path, "o.csv", problems);
  REQUIRE(one_way.nearest("b:y", "a:x") == one_way.find("a:x", "b:y"));
}

}  // namespace measured_table_test
