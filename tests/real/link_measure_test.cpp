// real/link_measure's parsers and the CLI's bad-input paths of apply/down/status (exit 2, one
// line, nothing done), no root and no network needed.
#include <catch2/catch.hpp>

#include "real/link_measure.hpp"
#include "sim/common/error.hpp"
#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace link_measure_test {

using namespace geotrain;

TEST_CASE("ping's minimum round trip is read", "[real][measure]") {
  CHECK(real::ping_min_rtt_ms("5 packets transmitted, 5 received, 0% packet loss, time 803ms\n"
                              "rtt min/avg/max/mdev = 22.147/22.301/22.512/0.130 ms\n") == Approx(22.147));
  CHECK_THROWS_WITH(real::ping_min_rtt_ms("5 packets transmitted, 0 received, 100% packet loss\n"),
                    "no round-trip summary in ping's output (every packet lost?)");
}

TEST_CASE("iperf3's received goodput is read", "[real][measure]") {
  CHECK(real::iperf_received_mbps(R"({"end": {"sum_received": {"bits_per_second": 53200000.0}}})") == Approx(53.2));
  CHECK_THROWS_WITH(real::iperf_received_mbps(R"({"error": "unable to connect to server"})"),
                    "iperf3: unable to connect to server");
}

namespace {

const std::string kBin = GEOTRAIN_BINARY;
const std::string kSrc = GEOTRAIN_SOURCE_DIR;
const std::string kScenario = kSrc + "/scenarios/emu/diloco_timeout_3.yaml";
const std::string kHosts = kSrc + "/scenarios/real/netns_3hosts.yaml";

}  // namespace

TEST_CASE("real apply down status reject bad flags with exit 2 before any ssh", "[real][cli]") {
  using geotrain::test::sh;
  auto r = sh(kBin + " real apply " + kScenario + " --hosts " + kHosts + " --netem maybe");
  CHECK(r.status == 2);
  CHECK(r.out.find("--netem") != std::string::npos);
  r = sh(kBin + " real apply " + kScenario);
  CHECK(r.status == 2);
  CHECK(r.out.find("--hosts") != std::string::npos);
  r = sh(kBin + " real apply " + kScenario + " --hosts " + kHosts + " --measure no --out /tmp/x.json");
  CHECK(r.status == 2);
  CHECK(r.out == "--out: given with --measure no (expected --out only when the links are measured)\n");
  r = sh(kBin + " real apply " + kScenario + " --hosts /nonexistent/hosts.yaml");
  CHECK(r.status == 2);
  CHECK(r.out.find("/nonexistent/hosts.yaml") != std::string::npos);
  r = sh(kBin + " real down --hosts /nonexistent/hosts.yaml");
  CHECK(r.status == 2);
  r = sh(kBin + " real status");
  CHECK(r.status == 2);
  r = sh(kBin + " real down --hosts " + kHosts + " --connect-timeout 0");
  CHECK(r.status == 2);
}

}  // namespace link_measure_test
