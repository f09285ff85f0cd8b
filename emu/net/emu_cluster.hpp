#pragma once
// The operations behind `geotrain emu up|down|status`: checks, plan, apply, teardown, health.
#include <optional>
#include <string>
#include <vector>

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

// Checks privileges, name and address range, then builds the cluster and leaves it running.
// Nothing is left behind when it throws.
ClusterRecord bring_up(const Scenario& scenario, const UpOptions& options, const StateStore& store);

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
