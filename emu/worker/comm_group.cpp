#include "emu/worker/comm_group.hpp"

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

void P2PBatch::recv(torch::Tensor buffer, int peer, int tag) {
  if (coalesce_) {
    recvs_.emplace_back(std::move(buffer), peer);
    recv_tags_.push_back(tag);
    return;
  }
  keep_.push_back(buffer);
  std::vector<torch::Tensor> v{std::move(buffer)};
  works_.push_back(group_.recv(v, peer, tag));
}

void P2PBatch::send(torch::Tensor buffer, int peer, int tag) {
  if (coalesce_) {
    sends_.emplace_back(std::move(buffer), peer);
    send_tags_.push_back(tag);
    return;
  }
  keep_.push_back(buffer);
  std::vector<torch::Tensor> v{std::move(buffer)};
  works_.push_back(group_.send(v, peer, tag));
}

void P2PBatch::wait(std::chrono::milliseconds timeout) {
  if (coalesce_ && (!recvs_.empty() || !sends_.empty())) {
    compat::start_coalescing(group_);
    std::vector<WorkPtr> posted;  // inside a coalesced batch each op's own Work is not waited
    for (std::size_t i = 0; i < recvs_.size(); ++i) {
      std::vector<torch::Tensor> v{recvs_[i].first};
      posted.push_back(group_.recv(v, recvs_[i].second, recv_tags_[i]));
    }
    for (std::size_t i = 0; i < sends_.size(); ++i) {
      std::vector<torch::Tensor> v{sends_[i].first};
      posted.push_back(group_.send(v, sends_[i].second, send_tags_[i]));
    }
    if (auto batch = compat::end_coalescing(group_)) works_.push_back(batch);
    else works_.insert(works_.end(), posted.begin(), posted.end());
  }
  for (auto& w : works_) w->wait(timeout);
  works_.clear();
  keep_.clear();
  recvs_.clear();
  sends_.clear();
  recv_tags_.clear();
  send_tags_.clear();
}

}  // namespace geotrain
