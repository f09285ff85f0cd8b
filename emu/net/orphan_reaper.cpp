#include "emu/net/orphan_reaper.hpp"

#include <fmt/format.h>

#include "emu/net/host_checks.hpp"

namespace geotrain::emu {

std::string ReapedCluster::line() const {
  return fmt::format("reaped cluster {}: its owner (pid {}) is gone; removed {} namespaces, stopped {} processes",
                     cluster, owner_pid, removed.namespaces, removed.processes);
}

bool owner_gone(const ClusterRecord& record) { return record.owner && !identity_alive(*record.owner); }

std::vector<ReapedCluster> reap_orphaned_clusters(const StateStore& store) {
  std::vector<ReapedCluster> out;
  if (!has_network_privileges()) return out;
  for (const auto& record : store.load_all()) {
    if (!owner_gone(record)) continue;
    // The guardian may be removing it at this very moment: teardown by prefix is idempotent.
    out.push_back({record.cluster, record.owner->pid, teardown_cluster(record.cluster, store)});
  }
  return out;
}

}  // namespace geotrain::emu
