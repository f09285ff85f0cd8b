#include "emu/worker/nccl_environment.hpp"

namespace geotrain {

EnvironmentList nccl_environment(const std::string& interface, int rank, bool ranks_share_a_gpu) {
  EnvironmentList env = {
      // NCCL's bootstrap and its socket transport use this interface only: the shaped one (the
      // rank namespace's veth, a real host's shaped device), never another route around the
      // shaping (docker0, a management network) that NCCL would otherwise pick by itself.
      {"NCCL_SOCKET_IFNAME", interface},
      // No InfiniBand / RoCE: an RDMA path bypasses the kernel's qdiscs, so tc would shape
      // nothing and the measured run would not see the scenario's links.
      {"NCCL_IB_DISABLE", "1"},
  };
  if (!ranks_share_a_gpu) return env;
  // Several emulated ranks on one machine (often on one GPU). Each must talk to the others only
  // through its namespace's shaped veth, as separate hosts would:
  env.insert(env.end(), {
      // no CUDA peer-to-peer copies (NVLink / PCIe) between GPUs of this machine,
      {"NCCL_P2P_DISABLE", "1"},
      // no shared-memory transport between processes of this machine,
      {"NCCL_SHM_DISABLE", "1"},
      // no NVLink SHARP (NVLS) multicast between the GPUs of an NVSwitch system,
      {"NCCL_NVLS_ENABLE", "0"},
      // and a host identity of its own per rank. NCCL decides which ranks are "on one host" by a
      // hash of the host id, and refuses two ranks with one host hash on one GPU bus id
      // ("Duplicate GPU detected"); a distinct NCCL_HOSTID per process makes every rank a host of
      // its own, so ranks sharing a GPU are accepted and pick the socket transport between them.
      {"NCCL_HOSTID", "geotrain-rank-" + std::to_string(rank)},
      // NCCL 2.30 compares GPU UUIDs instead of (host hash, bus id), which a host id no longer
      // gets past; this turns that check off (older NCCLs ignore the variable).
      {"NCCL_MULTI_RANK_GPU_ENABLE", "1"},
  });
  return env;
}

std::vector<std::string> environment_strings(const EnvironmentList& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) out.push_back(name + "=" + value);
  return out;
}

WorkerTransport worker_transport(const std::string& collectives) {
  if (collectives == "nccl") return {"nccl", "p2p"};
  return {"gloo", collectives};
}

}  // namespace geotrain
