#pragma once
// The environment NCCL needs in each worker process, and the worker flags a collectives choice
// stands for, for every executor that starts geotrain-worker (--backend nccl): the emulator (emu/launch, one namespace per rank, several
// ranks on one GPU) and real/ (one host per machine, its own GPUs). Torch-free: the launchers
// set it, the worker only inherits it. Why each variable is there: nccl_environment.cpp.
#include <string>
#include <utility>
#include <vector>

namespace geotrain {

using EnvironmentList = std::vector<std::pair<std::string, std::string>>;

// NAME/value pairs, in a fixed order, for the worker of `rank` whose traffic must leave through
// `interface` (the emulator's rank namespaces: eth0, emu/net/cluster_layout.hpp; --unshaped: lo;
// a real host: its hosts-file interface). ranks_share_a_gpu: the emulator, where every rank is
// its own "host" but several ranks may run on one GPU of one machine.
EnvironmentList nccl_environment(const std::string& interface, int rank, bool ranks_share_a_gpu);

// "NAME=value" strings, as sim/process's ChildSpec::env takes them.
std::vector<std::string> environment_strings(const EnvironmentList& env);

// The worker's --backend and --collectives for a scenario's emulation.collectives:
//   p2p  -> --backend gloo --collectives p2p   (the Program's schedules over Gloo send/recv)
//   gloo -> --backend gloo --collectives gloo  (Gloo's own collectives)
//   nccl -> --backend nccl --collectives p2p   (the Program's schedules over NCCL send/recv)
struct WorkerTransport {
  std::string backend;      // gloo | nccl
  std::string collectives;  // p2p | gloo
};
WorkerTransport worker_transport(const std::string& collectives);

}  // namespace geotrain
