#pragma once
// Ctrl-C, SIGTERM and crashes while geotrain owns a cluster.
//  - SIGINT/SIGTERM set a flag; long operations call throw_if_interrupted() between steps, so
//    the stack unwinds and the RAII owners (ClusterBuilder, TemporaryCluster) undo what exists.
//  - SIGSEGV/SIGABRT/SIGBUS/SIGFPE/SIGILL cannot unwind: the handler replaces the process with
//    `geotrain emu down <cluster>` (execv is async-signal-safe), so a crash still cleans up.
//  - kill -9 runs nothing here: the cluster's guardian (cluster_guard.hpp) removes it, and
//    `geotrain emu down --all` still finds any leftovers by prefix.
#include <string>

namespace geotrain::emu {

// While alive, the signals above lead to the cleanup of cluster.
class CleanupOnSignal {
 public:
  explicit CleanupOnSignal(const std::string& cluster);
  ~CleanupOnSignal();
  CleanupOnSignal(const CleanupOnSignal&) = delete;
  CleanupOnSignal& operator=(const CleanupOnSignal&) = delete;
};

bool interrupted();
void throw_if_interrupted();  // throws geotrain::Error("interrupted by SIGINT")

}  // namespace geotrain::emu
