#pragma once
// The transport of the worker's process groups: Gloo (CPU tensors; the default, what the
// development machines run) or NCCL (CUDA tensors; compiled only when the LibTorch found at
// build time has CUDA, cuda/). Everything above this header sees a compat::CommGroup.
#include <chrono>
#include <string>
#include <vector>

#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/torch.h>

#include "emu/worker/torch_compat.hpp"

namespace geotrain {

enum class Transport { gloo, nccl };

using CommGroupPtr = c10::intrusive_ptr<compat::CommGroup>;
using WorkPtr = c10::intrusive_ptr<c10d::Work>;

struct CommGroupOptions {
  Transport transport = Transport::gloo;
  std::string bind_addr = "127.0.0.1";  // Gloo binds here (NCCL: NCCL_SOCKET_IFNAME)
  std::chrono::milliseconds timeout{60000};
};

// One process group over `store` (a PrefixStore per group). Throws InputError when this build
// has no such transport (no Gloo headers, or a LibTorch without CUDA for NCCL).
CommGroupPtr make_comm_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                             const CommGroupOptions& options);
bool transport_built(Transport t);

// The transports' own constructors, one file each (comm_group_gloo.cpp, cuda/comm_group_nccl.cpp;
// no_gloo.cpp / no_cuda.cpp where this build leaves them out).
CommGroupPtr make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                             const CommGroupOptions& options);
CommGroupPtr make_nccl_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                             const CommGroupOptions& options);
bool gloo_built();
bool nccl_built();

// The sends and receives of one exchange step (a collective schedule's step, a gossip pair, a
// warm-up): receives are posted before sends (Gloo: a peer may send only once it has this
// rank's "ready to receive" notice, README.md). With NCCL they go out as ONE group call: NCCL
// runs a pair's ops in order on one stream, so a send and a receive with the same peer posted
// separately would each wait for the other's.
class P2PBatch {
 public:
  P2PBatch(compat::CommGroup& group, Transport transport);
  void recv(torch::Tensor buffer, int peer, int tag) { add({std::move(buffer), peer, tag, false}); }
  void send(torch::Tensor buffer, int peer, int tag) { add({std::move(buffer), peer, tag, true}); }
  // Posts what is queued (NCCL) and waits for all of it.
  void wait(std::chrono::milliseconds timeout);

 private:
  struct Transfer {
    torch::Tensor buffer;
    int peer = 0, tag = 0;
    bool is_send = false;
  };
  void add(Transfer t);  // posted now, or queued until wait (coalesced)
  WorkPtr post(const Transfer& t);

  compat::CommGroup& group_;
  bool coalesce_;
  std::vector<Transfer> queued_;  // coalesced: posted at wait, receives first
  std::vector<WorkPtr> works_;
  std::vector<torch::Tensor> keep_;  // posted buffers, alive until the transfers have completed
};

}  // namespace geotrain
