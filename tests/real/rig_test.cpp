// The ssh test rig itself (label real, root): three namespaces with sshd come up, each answers
// over ssh from the controller namespace, and its remote command sees only its own eth0.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>

#include "real/hosts_file.hpp"
#include "real/ssh_client.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "tests/real/rig_support.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace rig_test {

using namespace geotrain;

TEST_CASE("rig up - ssh reaches each host and it sees only its own eth0", "[real][rig]") {
  if (!test::rig_ready()) return;
  std::string netns;
  {
    test::SshRig rig(test::three_hosts(), test::build_dir());
    netns = rig.host_netns(0);
    const Scenario s = load_scenario(test::diloco3(), {});
    const real::HostsFile hosts = real::load_hosts(rig.hosts_file(), s);
    REQUIRE(hosts.hosts.size() == 3);
    real::SshOptions o;
    o.netns = rig.controller_netns();
    for (std::size_t i = 0; i < 3; ++i) {
      const auto r = real::ssh_run_checked(hosts.hosts[i], "ip -4 -o addr show", "ip addr", {}, o);
      INFO(r.out);
      CHECK(r.out.find(rig.address(i) + "/24") != std::string::npos);
      for (std::size_t j = 0; j < 3; ++j)
        if (j != i) CHECK(r.out.find(rig.address(j) + "/") == std::string::npos);
      CHECK(r.out.find("10.199.0.254") == std::string::npos);
    }
    // stdin reaches the remote command; a stopped sshd is an error naming its host.
    CHECK(real::ssh_run(hosts.hosts[1], "cat", {.stdin_text = "hello\n", .timeout_s = 20}, o).out == "hello\n");
    rig.stop_sshd(2);
    try {
      real::ssh_run(hosts.hosts[2], "true", {}, o);
      FAIL("no error");
    } catch (const real::HostError& e) {
      CHECK(std::string(e.what()).rfind("host ns-london (root@10.199.0.3): ssh failed: ", 0) == 0);
    }
  }
  CHECK_FALSE(std::filesystem::exists("/run/netns/" + netns));
}

}  // namespace rig_test
