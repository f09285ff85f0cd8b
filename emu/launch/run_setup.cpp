#include "emu/launch/run_setup.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "emu/net/cluster_builder.hpp"
#include "emu/net/emu_cluster.hpp"
#include "emu/net/netns_util.hpp"
#include "sim/common/error.hpp"
#include "sim/results/manifest.hpp"
#include "sim/results/run_directory.hpp"

namespace geotrain::emu {

namespace {

// A cluster name of its own per run, so runs never collide with each other or with `emu up`.
std::string run_cluster_name(const Scenario& s) {
  return fmt::format("{}_{}", cluster_name_from(s.name).substr(0, 14), ::getpid() % 1000000);
}

}  // namespace

std::string claim_emu_directory(const std::string& results_root, const std::string& scenario,
                                const std::string& out) {
  return results::claim_directory(results_root, scenario, "emu", out);
}

nlohmann::ordered_json emu_manifest(const Scenario& s, const std::vector<std::string>& overrides,
                                    const nlohmann::ordered_json& extra) {
  nlohmann::ordered_json j = results::manifest_head({"emu", s.name, s.path, overrides, s.seed, nlohmann::ordered_json::object()});
  for (const auto& [k, v] : extra.items()) j[k] = v;
  return j;
}

RunCluster::RunCluster(const Scenario& s, const std::string& existing, DelayBackend backend) {
  if (!existing.empty()) {
    const auto r = store_.load(existing);
    if (!r || !r->complete)
      throw InputError(fmt::format("--cluster {}: no complete cluster of that name (start one with "
                                   "`geotrain emu up {} --cluster {}`)", existing, s.path, existing));
    if (r->ranks != static_cast<int>(s.devices.size()))
      throw InputError(fmt::format("--cluster {}: has {} ranks but the scenario has {} devices (expected "
                                   "a cluster built from this scenario)", existing, r->ranks, s.devices.size()));
    record_ = *r;
  } else {
    UpOptions o;
    o.cluster = run_cluster_name(s);
    o.backend = backend;
    // bring_up guards its own building (and restores the default handlers when it returns);
    // from then on this run's guard covers the cluster until remove().
    auto built = bring_up_owned(s, o, store_);
    record_ = built.record;
    guard_ = std::move(built.guard);
    owned_ = true;
    cleanup_ = std::make_unique<CleanupOnSignal>(o.cluster);
  }
  layout_ = std::make_unique<ClusterLayout>(record_.cluster, record_.ranks, Ipv4Subnet::parse(record_.subnet));
}

std::vector<std::string> RunCluster::remove() {
  if (!owned_ || removed_) return {};
  removed_ = true;
  teardown_cluster(record_.cluster, store_);
  return list_namespaces(kNamespacePrefix + record_.cluster + "-");
}

RunCluster::~RunCluster() {
  try {
    remove();
  } catch (...) {
    // Destructors must not throw; `geotrain emu down --all` finds whatever is left by prefix.
  }
}

int free_port_in(const std::string& netns, const std::string& address) {
  int port = -1;
  std::string error;
  // setns changes only the calling thread: a short-lived thread keeps the launcher where it is.
  std::thread([&] {
    try {
      std::optional<NetnsGuard> guard;  // "" = the launcher's own namespace (--unshaped)
      if (!netns.empty()) guard.emplace(netns);
      const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = 0;
      ::inet_pton(AF_INET, address.c_str(), &a.sin_addr);
      socklen_t len = sizeof a;
      if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
      if (fd >= 0) ::close(fd);
    } catch (const std::exception& e) {
      error = e.what();
    }
  }).join();
  if (port < 0) throw Error(fmt::format("no free port at {} in {}: {}", address, netns, error));
  return port;
}

}  // namespace geotrain::emu
