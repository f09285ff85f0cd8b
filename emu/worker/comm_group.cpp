#include "emu/worker/comm_group.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "sim/common/error.hpp"

namespace geotrain {

bool transport_built(Transport t) { return t == Transport::nccl ? nccl_built() : gloo_built(); }

CommGroupPtr make_comm_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                             const CommGroupOptions& options) {
  return options.transport == Transport::nccl ? make_nccl_group(store, rank, size, options)
                                              : make_gloo_group(store, rank, size, options);
}

P2PBatch::P2PBatch(compat::CommGroup& group, Transport transport)
    : group_(group), coalesce_(transport == Transport::nccl && compat::kCanCoalesce) {}

void P2PBatch::add(Transfer t) {
  if (coalesce_) {
    queued_.push_back(std::move(t));
    return;
  }
  works_.push_back(post(t));
  keep_.push_back(std::move(t.buffer));
}

WorkPtr P2PBatch::post(const Transfer& t) {
  std::vector<torch::Tensor> v{t.buffer};
  return t.is_send ? group_.send(v, t.peer, t.tag) : group_.recv(v, t.peer, t.tag);
}

void P2PBatch::wait(std::chrono::milliseconds timeout) {
  if (coalesce_ && !queued_.empty()) {
    // Receives before sends, each kind in the order queued (what every peer's batch expects).
    std::stable_partition(queued_.begin(), queued_.end(), [](const Transfer& t) { return !t.is_send; });
    compat::start_coalescing(group_);
    std::vector<WorkPtr> posted;  // inside a coalesced batch each op's own Work is not waited
    for (const auto& t : queued_) posted.push_back(post(t));
    if (auto batch = compat::end_coalescing(group_)) works_.push_back(batch);
    else works_.insert(works_.end(), posted.begin(), posted.end());
  }
  for (auto& w : works_) w->wait(timeout);
  works_.clear();
  keep_.clear();
  queued_.clear();
}

}  // namespace geotrain
