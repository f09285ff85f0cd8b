#pragma once
// The pieces of an emulation run around the workers: its directory and manifest, the cluster it
// runs on (built for the run and removed after it, or borrowed from `geotrain emu up`), and the
// store port.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "emu/net/cluster_guard.hpp"
#include "emu/net/cluster_layout.hpp"
#include "emu/net/interrupt.hpp"
#include "emu/net/state_store.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::emu {

// <root>/<scenario>/emu/<NNN> (next free id, claimed with mkdir), or `out` if given (refused if
// it already holds a run).
std::string claim_emu_directory(const std::string& results_root, const std::string& scenario,
                                const std::string& out);

// git sha (with -dirty), version, host, seed, overrides, executor "emu", plus `extra`.
nlohmann::ordered_json emu_manifest(const Scenario& scenario, const std::vector<std::string>& overrides,
                                    const nlohmann::ordered_json& extra);

// The cluster of a run. Built here: removed (namespaces, qdiscs, rules, delayers, anything
// still running inside) by the destructor, cleaned up on SIGINT/SIGTERM/crash meanwhile, and by
// its guardian if the launcher dies without unwinding (kill -9; emu/net/cluster_guard.hpp).
// Borrowed (`name` of a running `emu up` cluster): left as it was.
class RunCluster {
 public:
  RunCluster(const Scenario& scenario, const std::string& existing, DelayBackend backend);
  ~RunCluster();
  RunCluster(const RunCluster&) = delete;
  RunCluster& operator=(const RunCluster&) = delete;

  const ClusterLayout& layout() const { return *layout_; }
  const ClusterRecord& record() const { return record_; }
  bool owned() const { return owned_; }
  // Removes an owned cluster now; returns what was left over (namespaces with its prefix).
  std::vector<std::string> remove();

 private:
  StateStore store_;
  ClusterRecord record_;
  std::unique_ptr<ClusterLayout> layout_;
  std::unique_ptr<ClusterGuard> guard_;
  std::unique_ptr<CleanupOnSignal> cleanup_;
  bool owned_ = false;
  bool removed_ = false;
};

// A port nothing listens on at `address` inside namespace `netns` (bind to port 0 there; "" =
// the launcher's own namespace).
int free_port_in(const std::string& netns, const std::string& address);

}  // namespace geotrain::emu
