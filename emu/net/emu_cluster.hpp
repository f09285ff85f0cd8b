#pragma once
// The operations behind `geotrain emu up|down|status`: checks, plan, apply, teardown, health.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emu/net/cluster_guard.hpp"
#include "emu/net/plan.hpp"
#include "emu/net/state_store.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::emu {

struct UpOptions {
  std::string cluster;                // "" = from the scenario name
  std::optional<std::string> subnet;  // none = first free 10.<k>.0.0/16
  DelayBackend backend = DelayBackend::auto_detect;
  std::string delayer;  // "" = geotrain-delayer next to the running geotrain
};

// Resolves names, the address range and the backend; root is needed only to probe for netem
// (without it, auto resolves to nfqueue and says so in the plan's notes).
Plan plan_cluster(const Scenario& scenario, const UpOptions& options, const StateStore& store);

// Checks privileges, name and address range, then builds the cluster and leaves it running
// until `emu down`. Nothing is left behind when it throws, nor when this process is killed while
// it builds (its guardian removes what exists, cluster_guard.hpp).
ClusterRecord bring_up(const Scenario& scenario, const UpOptions& options, const StateStore& store);

// A cluster that lives with this process (emulate, a temporary link test): the caller removes it
// (teardown_cluster) before dropping the guard; if this process dies first, however it dies, the
// guardian removes it.
struct OwnedCluster {
  ClusterRecord record;
  std::unique_ptr<ClusterGuard> guard;
};
OwnedCluster bring_up_owned(const Scenario& scenario, const UpOptions& options, const StateStore& store);

// How to run a program inside rank r, for people.
std::string usage_hint(const ClusterRecord& record);

struct RankHealth {
  std::string netns;
  bool namespace_present = false;
  std::string delayer_problem;  // "" = healthy or none expected
};
struct ClusterStatus {
  ClusterRecord record;
  std::vector<RankHealth> ranks;
  bool healthy() const;
};
std::vector<ClusterStatus> cluster_status(const StateStore& store);

// The delayer executable next to the running program.
std::string default_delayer_path();

}  // namespace geotrain::emu
