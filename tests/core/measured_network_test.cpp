// network.measured (sim/scenario/measured_network.hpp): a scenario naming regions of a table
// gets exactly the table's figures per directed pair, the documented link inside a region, and
// `geotrain check` lists every pair filled from the nearest measured pair. Error messages are
// pinned in tests/bad_scenarios/measured_*.
#include "sim/scenario/measured_network.hpp"

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>

#include "sim/scenario/measured_table.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace measured_network_test {

using namespace geotrain;

namespace {
const std::string kSource = GEOTRAIN_SOURCE_DIR;

MeasuredTable bundled_table() {
  std::vector<std::string> problems;
  auto t = MeasuredTable::read(kSource + "/scenarios/networks/skyplane_2022.csv", "t", problems);
  REQUIRE(problems.empty());
  return t;
}

bool same_link(const Link& a, const Link& b) {
  return a.delay_s == b.delay_s && a.bandwidth_Bps == b.bandwidth_Bps;
}

std::string check_output(const std::string& file) {
  const std::string cmd = std::string(GEOTRAIN_BINARY) + " check " + file + " 2>&1";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  std::array<char, 4096> buffer{};
  std::size_t n;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) out.append(buffer.data(), n);
  CHECK(pclose(pipe) == 0);
  return out;
}
}  // namespace

TEST_CASE("measured regions get exactly the table's delay and bandwidth", "[scenario][measured]") {
  const Scenario s = parse_scenario(R"(
devices:
  groups: [{region: aws:us-east-1, count: 2}, {region: gcp:europe-west4, count: 1}, {region: azure:japaneast, count: 1}]
network: {measured: skyplane_2022}
model: {preset: gpt-tiny}
strategy: {name: ddp-allreduce}
)",
                                    "test.yaml", kSource + "/scenarios/examples", {});
  const auto t = bundled_table();
  const std::vector<std::string> region_of{"aws:us-east-1", "aws:us-east-1", "gcp:europe-west4",
                                           "azure:japaneast"};
  REQUIRE(s.network.device_count() == 4);
  CHECK(s.network.region_count() == 3);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      if (i == j) continue;
      INFO(i << " -> " << j);
      const auto& a = region_of[static_cast<std::size_t>(i)];
      const auto& b = region_of[static_cast<std::size_t>(j)];
      // Directed: i -> j is the row a -> b, which differs from b -> a.
      const Link expected = a == b ? sections::kMeasuredIntraDefault : t.find(a, b)->link;
      CHECK(same_link(s.network.link(i, j), expected));
    }
  CHECK(s.filled_pairs.empty());
  // The table as the working directory sees it (relative below it, else absolute).
  CHECK_THAT(s.network_source,
             Catch::StartsWith("measured ") &&
                 Catch::EndsWith("scenarios/networks/skyplane_2022.csv (3 regions)"));
}

TEST_CASE("measured_intra sets the links inside every region", "[scenario][measured]") {
  const Scenario s = parse_scenario(R"(
devices: {count: 4, regions: [aws:us-east-1, gcp:us-east4]}
network: {measured: skyplane_2022, measured_intra: {delay: 2ms, bandwidth: 40Gbps}}
model: {preset: gpt-tiny}
strategy: {name: ddp-allreduce}
)",
                                    "test.yaml", kSource, {});
  CHECK(same_link(s.network.link(0, 1), Link{0.002, 40e9 / 8}));
  CHECK(same_link(s.network.link(3, 2), Link{0.002, 40e9 / 8}));
  CHECK(
      same_link(s.network.link(0, 2), bundled_table().find("aws:us-east-1", "gcp:us-east4")->link));
}

TEST_CASE("filled pairs take the nearest row and check lists them", "[scenario][measured]") {
  const Scenario s = load_scenario(kSource + "/tests/measured/fill_nearest.yaml");
  // Devices 0, 1, 2 are in aws:us-east-1, gcp:us-east4, azure:westeurope.
  CHECK(same_link(s.network.link(0, 2),
                  Link{0.040, 4e9 / 8}));  // from gcp:us-east4 -> azure:westeurope
  CHECK(same_link(s.network.link(2, 0),
                  Link{0.041, 3.5e9 / 8}));  // from azure:westeurope -> gcp:us-east4
  CHECK(same_link(s.network.link(0, 1), Link{0.001, 10e9 / 8}));
  // The table's own row inside gcp:us-east4.
  CHECK(same_link(s.network.intra_link(1), Link{0.0001, 50e9 / 8}));
  CHECK(same_link(s.network.intra_link(0), sections::kMeasuredIntraDefault));
  REQUIRE(s.filled_pairs.size() == 2);

  const std::string table = kSource + "/tests/measured/three_regions.csv";
  const std::string out = check_output(kSource + "/tests/measured/fill_nearest.yaml");
  INFO(out);
  CHECK(out.find(
            "filled     aws:us-east-1 -> azure:westeurope from gcp:us-east4 -> azure:westeurope (" +
            table + ":5: 40 ms, 4 Gbit/s)\n") != std::string::npos);
  CHECK(out.find(
            "filled     azure:westeurope -> aws:us-east-1 from azure:westeurope -> gcp:us-east4 (" +
            table + ":6: 41 ms, 3.5 Gbit/s)\n") != std::string::npos);
  CHECK(out.find("2 pairs filled from the nearest measured pair") != std::string::npos);
}

TEST_CASE("the bundled intercloud scenario loads from the measured table", "[scenario][measured]") {
  const Scenario s = load_scenario(kSource + "/scenarios/networks/intercloud_64.yaml");
  CHECK(s.devices.size() == 64);
  CHECK(s.network.region_count() == 8);
  CHECK(s.filled_pairs.empty());
}

}  // namespace measured_network_test
