#pragma once
// The applier: runs a Plan and owns what it created until keep() hands the cluster over to its
// state file. The destructor undoes every step that ran, in reverse order (delayers stopped,
// namespaces deleted, which takes their veths, qdiscs and iptables rules with them), so a
// failing command, an exception or Ctrl-C leaves nothing behind.
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

#include "emu/net/plan.hpp"
#include "emu/net/state_store.hpp"

namespace geotrain::emu {

// What happens to a built cluster: it stays until `emu down` (emu up), or it lives with the
// process that built it (emulate, a temporary link test; see cluster_guard.hpp).
enum class Lifetime { until_down, with_owner };

class ClusterBuilder {
 public:
  // builder: the process building it, named in the record as its owner while it builds (its
  // guardian must be running already), so a kill -9 half-way leaves nothing for long.
  ClusterBuilder(const Plan& plan, const StateStore& store, std::string scenario_path,
                 const ProcessIdentity& builder);
  ~ClusterBuilder();
  ClusterBuilder(const ClusterBuilder&) = delete;
  ClusterBuilder& operator=(const ClusterBuilder&) = delete;

  // Runs every step (batched); throws on the first failure (the destructor then undoes).
  void build();
  // The cluster stays after this object is gone; returns its record (marked complete, and with
  // no owner for Lifetime::until_down).
  ClusterRecord keep(Lifetime lifetime);
  // Undo now (what the destructor does).
  void undo();

  const ClusterRecord& record() const { return record_; }

 private:
  void run_group(const std::vector<const Step*>& group);

  const Plan& plan_;
  const StateStore& store_;
  ClusterRecord record_;
  std::vector<const Step*> done_;          // steps that ran, in order
  std::map<std::string, pid_t> delayers_;  // netns -> pid
  bool kept_ = false;
};

// Stops every process of the cluster (its namespaces and its tagged delayers), deletes its
// namespaces and its record. Works from the prefix alone, so it also cleans up after kill -9.
struct TeardownReport {
  int namespaces = 0;
  int processes = 0;
};
TeardownReport teardown_cluster(const std::string& cluster, const StateStore& store);
// Every cluster whose name starts with cluster_prefix ("" = every geotrain cluster), found
// through records, namespace names and delayer command lines.
TeardownReport teardown_all(const std::string& cluster_prefix, const StateStore& store);

}  // namespace geotrain::emu
