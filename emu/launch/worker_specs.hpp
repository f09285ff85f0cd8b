#pragma once
// The command line, namespace and environment of each geotrain-worker of an emulation run
// (emulate.cpp), from the Program, where the workers live (the cluster's rank namespaces, or
// --unshaped: the launcher's own namespace on loopback) and the run's flags.
#include <cstdint>
#include <string>
#include <vector>

#include "emu/launch/worker_set.hpp"
#include "emu/net/cluster_layout.hpp"
#include "sim/program/program.hpp"

namespace geotrain::emu {

inline constexpr const char* kLoopbackAddress = "127.0.0.1";
// manifest.json's and summary.json's "network" for a run whose links were not shaped.
inline constexpr const char* kUnshapedNetwork = "unshaped (loopback)";
inline constexpr const char* kShapedNetwork = "shaped (network namespaces)";

// Where the workers live and talk: the cluster's rank namespaces (each on its eth0), or, with no
// layout (--unshaped), the launcher's own namespace on 127.0.0.1 / lo.
struct WorkerNetwork {
  const ClusterLayout* layout = nullptr;
  std::string netns(int device) const { return layout ? layout->rank_namespace(device) : ""; }
  std::string address(int device) const { return layout ? layout->rank_address(device) : kLoopbackAddress; }
  std::string interface() const { return layout ? kRankInterface : "lo"; }
};

struct WorkerRunFlags {
  std::string worker;          // absolute path of geotrain-worker
  std::string job;             // <run>/job.json
  int steps = 1;
  int threads = 1;
  std::uint64_t seed = 1;
  double timeout_s = 60;       // the launcher's stall limit; workers get 2T + 5
  std::string device = "cpu";  // cpu | cuda
  std::string collectives = "p2p";  // the run's p2p | gloo | nccl (nccl_environment.hpp maps it)
  int ranks_per_gpu = 0;       // device cuda: ranks sharing one GPU (0: not passed)
};

// One WorkerSpec per Program rank; creates <dir>/ranks/<r>/. The store is rank 0's device's
// address at `store_port`. With nccl each worker also gets NCCL's environment for its rank
// (emu/worker/nccl_environment.hpp: ranks share the machine's GPUs).
std::vector<WorkerSpec> make_worker_specs(const Program& program, const WorkerNetwork& net,
                                          const WorkerRunFlags& flags, const std::string& dir, int store_port);

}  // namespace geotrain::emu
