// `geotrain emulate --unshaped` with the real CPU worker (no root, no namespaces): two ranks of
// ddp_ring_2 train on 127.0.0.1 in this namespace, the results say the links were not shaped, and
// `geotrain compare` on the run says so in one warning line. Judges files, bytes and the loss,
// never time.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/remove_at_exit.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace emulate_unshaped_test {

namespace {

const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenario = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2.yaml";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("emulate --unshaped: 2 CPU ranks train on loopback, and compare warns that links were not shaped",
          "[emu][launch][unshaped][worker]") {
  const std::string dir = geotrain::test::process_temp_path("geotrain-unshaped-run");
  const std::string cmp = geotrain::test::process_temp_path("geotrain-unshaped-compare");
  // As somebody else when root: --unshaped needs no privileges.
  const std::string as_user = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const auto r = geotrain::test::sh(as_user + kBin + " emulate " + kScenario + " --unshaped --steps 3 --out " + dir +
                                    " 2>&1");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("links NOT shaped") != std::string::npos);
  const auto manifest = read_json(dir + "/manifest.json");
  CHECK(manifest["status"] == "ok");
  CHECK(manifest["network"] == "unshaped (loopback)");
  CHECK(manifest["device"] == "cpu");
  CHECK(manifest["backend"] == "gloo");
  CHECK(manifest["collectives"] == "p2p");
  CHECK(manifest["cluster"] == "");
  CHECK(manifest["links_off"] == "not shaped (--unshaped)");
  CHECK_FALSE(std::filesystem::exists(dir + "/linktest.json"));
  const auto summary = read_json(dir + "/summary.json");
  CHECK(summary["network"] == "unshaped (loopback)");
  CHECK(summary["device"] == "cpu");
  CHECK(summary["iterations"] == 3);
  CHECK(summary["bytes"]["match"] == true);
  const auto& loss = summary["loss"];
  REQUIRE(loss.size() == 3u);
  CHECK(loss.back().get<double>() < loss.front().get<double>());

  const auto c = geotrain::test::sh(kBin + " compare " + kScenario + " --measured " + dir +
                                    " --network-model flow --seeds 1 --out " + cmp + " 2>&1");
  INFO(c.out);
  REQUIRE(c.status == 0);
  CHECK(count_of(c.out, "warning: measured run " + dir + " is unshaped (loopback): its links were not shaped, so "
                        "the network part of this comparison is not judged") == 1);
}

}  // namespace emulate_unshaped_test
