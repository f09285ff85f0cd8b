#pragma once
// What exists of each emulated cluster, on disk, so `emu down` and `emu down --all` can clean
// up after a geotrain that was killed (kill -9 runs no destructor). The record is written before
// anything is created and updated as delayers start; teardown never depends on it alone (it
// also finds namespaces and delayers by their prefix).
//
//   <dir>/<cluster>.json   dir = /run/geotrain (tmpfs: gone after a reboot, like the namespaces)
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "emu/net/process_identity.hpp"
#include "sim/common/safe_path.hpp"

namespace geotrain::emu {

struct ClusterRecord {
  std::string cluster;
  std::string scenario;  // path of the scenario file
  std::string subnet;    // "10.200.0.0/16"
  int ranks = 0;
  std::string backend;   // netem | nfqueue
  std::vector<std::string> namespaces;
  struct Delayer {
    std::string netns;
    pid_t pid = 0;
  };
  std::vector<Delayer> delayers;
  bool complete = false;  // false while `up` is still building it (or if it died doing so)
  long long created_unix_s = 0;
  // The process the cluster lives with (`emulate`, a temporary link test, any command while it
  // builds): its guardian removes the cluster when that process dies, and the next `emu up`,
  // `emu status` or `emulate` reaps it if the guardian could not. None: persistent (`emu up`)
  // until `emu down`.
  std::optional<ProcessIdentity> owner;
};

class StateStore {
 public:
  // dir "" = $GEOTRAIN_STATE_DIR or /run/geotrain.
  explicit StateStore(std::string dir = "");
  const std::string& dir() const { return dir_; }

  void save(const ClusterRecord& record) const;  // atomically (write + rename)
  std::optional<ClusterRecord> load(const std::string& cluster) const;
  std::vector<ClusterRecord> load_all() const;
  void remove(const std::string& cluster) const;
  // Files a cluster's delayer writes next to the record.
  std::string delayer_log(const std::string& netns) const { return dir_ + "/" + netns + ".delayer.log"; }
  std::string delayer_stats(const std::string& netns) const { return dir_ + "/" + netns + ".stats.json"; }

 private:
  // Checked: `emu down ../../etc/x` must not remove /etc/x.json.
  std::string path_of(const std::string& cluster) const {
    return path_under(dir_, {cluster + ".json"}, "cluster").string();
  }
  std::string dir_;
};

}  // namespace geotrain::emu
