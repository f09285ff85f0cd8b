// The bundled hosts files parse and assign every rank; the rules of assignment.
#include <catch2/catch.hpp>

#include <filesystem>

#include "real/hosts_file.hpp"
#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace hosts_file_test {

using namespace geotrain;
using namespace geotrain::real;

namespace {

const std::string kSource = GEOTRAIN_SOURCE_DIR;

Scenario case5() { return load_scenario(kSource + "/scenarios/emu/case5_8ranks.yaml"); }

std::string host_entry(const std::string& name, const std::string& address, const std::string& ranks) {
  return "  - {name: " + name + ", address: '" + address + "', interface: eth0, " + ranks +
         ", workdir: run, worker: bin/geotrain-worker}\n";
}

std::vector<std::string> problems(const std::string& text, const Scenario& s) {
  try {
    parse_hosts(text, "h.yaml", s);
  } catch (const ScenarioError& e) {
    return e.problems();
  }
  return {};
}

}  // namespace

TEST_CASE("the bundled example hosts file assigns every rank of case5_8ranks", "[real][hosts]") {
  const HostsFile h = load_hosts(kSource + "/scenarios/real/hosts.yaml", case5());
  REQUIRE(h.hosts.size() == 4);
  CHECK(h.hosts[0].name == "oregon");
  CHECK(h.hosts[0].ranks == std::vector<int>{0});
  CHECK(h.hosts[1].ranks == std::vector<int>{1, 2});
  CHECK(h.hosts[2].ranks == std::vector<int>{3, 4});
  CHECK(h.hosts[3].ranks == std::vector<int>{5, 6, 7});
  CHECK(h.host_of_rank == std::vector<int>{0, 1, 1, 2, 2, 3, 3, 3});
  CHECK(h.hosts[0].address.user == "ubuntu");
  CHECK(h.hosts[0].data_address == "192.0.2.10");
  CHECK(h.hosts[0].ssh_options == std::vector<std::string>{"-o", "ConnectTimeout=10"});
  CHECK(h.hosts[1].address.port == 2222);
  CHECK(h.hosts[3].address.host == "gpu-eu.example.org");
  CHECK(h.hosts[3].data_address == "203.0.113.40");
  CHECK(h.hosts[3].interface == "ens5");
  CHECK(h.hosts[3].worker == "geotrain/build/geotrain-worker");
  CHECK(h.hosts[3].delayer == "geotrain/build/geotrain-delayer");
}

TEST_CASE("the namespace rig hosts file gives each of three hosts one region", "[real][hosts]") {
  const Scenario s = load_scenario(kSource + "/scenarios/emu/diloco_timeout_3.yaml");
  const HostsFile h = load_hosts(kSource + "/scenarios/real/netns_3hosts.yaml", s);
  REQUIRE(h.hosts.size() == 3);
  for (int i = 0; i < 3; ++i) {
    CHECK(h.hosts[static_cast<std::size_t>(i)].ranks == std::vector<int>{i});
    CHECK(h.hosts[static_cast<std::size_t>(i)].address.user == "root");
    CHECK(h.hosts[static_cast<std::size_t>(i)].data_address == "10.199.0." + std::to_string(i + 1));
  }
}

TEST_CASE("counts take the lowest ranks left after explicit lists and regions", "[real][hosts]") {
  const std::string text = "hosts:\n" + host_entry("first", "10.0.0.1", "ranks: 2") +
                           host_entry("tokyo", "10.0.0.2", "region: Tokyo") +
                           host_entry("picked", "10.0.0.3", "ranks: [0, 7]") +
                           host_entry("rest", "10.0.0.4", "ranks: 3");
  const HostsFile h = parse_hosts(text, "h.yaml", case5());
  CHECK(h.hosts[0].ranks == std::vector<int>{1, 2});
  CHECK(h.hosts[1].ranks == std::vector<int>{3});
  CHECK(h.hosts[2].ranks == std::vector<int>{0, 7});
  CHECK(h.hosts[3].ranks == std::vector<int>{4, 5, 6});
}

TEST_CASE("a host's device is cpu unless the file says cuda", "[real][hosts]") {
  const HostsFile cpu = load_hosts(kSource + "/scenarios/real/hosts.yaml", case5());
  for (const auto& h : cpu.hosts) CHECK(h.device == "cpu");
  const HostsFile cuda = load_hosts(kSource + "/scenarios/real/hosts_cuda.yaml", case5());
  REQUIRE(cuda.hosts.size() == 4);
  for (const auto& h : cuda.hosts) CHECK(h.device == "cuda");
  const std::string text = "hosts:\n  - {name: a, address: 10.0.0.1, interface: eth0, ranks: 8, workdir: run, "
                           "worker: bin/geotrain-worker, device: cuda}\n";
  CHECK(parse_hosts(text, "h.yaml", case5()).hosts[0].device == "cuda");
  const std::string bad = "hosts:\n  - {name: a, address: 10.0.0.1, interface: eth0, ranks: 8, workdir: run, "
                          "worker: bin/geotrain-worker, device: opencl}\n";
  CHECK(problems(bad, case5()) ==
        std::vector<std::string>{"h.yaml:2: hosts[0].device = 'opencl': unknown worker device (known: cpu, cuda)"});
}

TEST_CASE("a hosts file may give a delayer path and no ssh options", "[real][hosts]") {
  const std::string text =
      "hosts:\n  - {name: a, address: 10.0.0.1, interface: eth0, ranks: 8, workdir: /srv/run, "
      "worker: /opt/gt/geotrain-worker, delayer: /usr/local/bin/geotrain-delayer}\n";
  const HostsFile h = parse_hosts(text, "h.yaml", case5());
  CHECK(h.hosts[0].delayer == "/usr/local/bin/geotrain-delayer");
  CHECK(h.hosts[0].ssh_options.empty());
  CHECK(h.hosts[0].address.to_string() == "10.0.0.1");
}

TEST_CASE("remote paths stay plain names", "[real][hosts]") {
  CHECK_FALSE(remote_path_problem("run"));
  CHECK_FALSE(remote_path_problem("/srv/geotrain/run-1"));
  CHECK(remote_path_problem(""));
  CHECK(remote_path_problem("a/../b"));
  CHECK(remote_path_problem("a//b"));
  CHECK(remote_path_problem("a/"));
  CHECK(remote_path_problem("-rf"));
  CHECK(remote_path_problem("$HOME/x"));
  CHECK(remote_path_problem("a b"));
}

TEST_CASE("control characters anywhere in a hosts file are refused", "[real][hosts]") {
  const std::string text = "hosts:\n" + host_entry("a", "10.0.0.1", "ranks: 8") + "  # \n";
  CHECK(problems(text, case5()).empty());
  const auto bad = problems("hosts:\n" + host_entry("'a\x1b" "b'", "10.0.0.1", "ranks: 8"), case5());
  REQUIRE(bad.size() == 1);
  CHECK(bad[0].find("control") != std::string::npos);
}

}  // namespace hosts_file_test
