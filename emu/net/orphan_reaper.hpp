#pragma once
// The second line of defence after the guardian (cluster_guard.hpp): clusters whose record names
// an owner that is gone (its guardian was killed too, or the machine ran an older geotrain).
// `emu up`, `emu status`, `emu linktest` and `emulate` call this first and print one line per
// reaped cluster. Persistent clusters (`emu up`, no owner) are never touched.
#include <string>
#include <vector>

#include "emu/net/cluster_builder.hpp"
#include "emu/net/state_store.hpp"

namespace geotrain::emu {

struct ReapedCluster {
  std::string cluster;
  pid_t owner_pid = 0;
  TeardownReport removed;
  std::string line() const;  // "reaped cluster X: its owner (pid P) is gone; removed ..."
};

// Removes every cluster of store whose owner no longer runs. Needs root for the teardown; without
// it, nothing is done (status then lists them as orphaned).
std::vector<ReapedCluster> reap_orphaned_clusters(const StateStore& store);

// Whether a record's owner is gone (false for persistent clusters).
bool owner_gone(const ClusterRecord& record);

}  // namespace geotrain::emu
