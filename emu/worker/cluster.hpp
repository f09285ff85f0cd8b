#pragma once
// The worker's view of the cluster: a c10d TCPStore (rank 0 serves it), one process group for
// point-to-point Send/Recv over all ranks ("world"), and one process group per Program group this
// rank belongs to, each behind its own PrefixStore. The groups are Gloo's or NCCL's
// (comm_group.hpp). Gloo binds to --bind-addr and NCCL to NCCL_SOCKET_IFNAME, so in the emulator
// every rank talks through its namespace's address and shaped links.
#include <chrono>
#include <map>
#include <memory>
#include <string>

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "emu/worker/comm_group.hpp"
#include "sim/program/program.hpp"

namespace geotrain {

struct ClusterOptions {
  int rank = 0;
  std::string store_addr = "127.0.0.1";
  int store_port = 29500;
  std::string bind_addr = "127.0.0.1";
  double timeout_s = 60;
  Transport transport = Transport::gloo;
};

class Cluster {
 public:
  Cluster(const ClusterOptions& options, const Program& program);

  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  // The world group a Send to `peer` / a Recv from `peer` goes on. Gloo: one ("world"), matched
  // by tag. NCCL: "world/up" for transfers to a higher rank, "world/down" to a lower one, so a
  // receive posted early cannot hold up a send to the same peer (p2p_order.hpp).
  compat::CommGroup& sends_to(int peer) { return peer > rank_ || !world_down_ ? *world_ : *world_down_; }
  compat::CommGroup& receives_from(int peer) { return peer < rank_ || !world_down_ ? *world_ : *world_down_; }
  compat::CommGroup& group(GroupId id);  // throws if this rank is not a member
  Transport transport() const { return options_.transport; }
  int position(GroupId id) const;             // this rank's index in the group's rank list
  std::chrono::milliseconds timeout() const { return timeout_; }

  // Seconds since the run's common epoch: rank 0's steady clock at start-up, shared through the
  // store. All ranks of an emulated cluster run on one kernel, so CLOCK_MONOTONIC is common.
  double now_s() const;
  // The run's TCPStore (shared by this process's threads) and a fresh client connection to it,
  // for a thread that polls it (the partial-reduce coordinator).
  c10d::Store& store() { return *store_; }
  c10::intrusive_ptr<c10d::Store> connect_store() const;
  // Blocks until every rank has arrived (store counter; no traffic on the measured links).
  // Rank 0, whose process holds the store, lingers until every peer has its reply (`last`: the
  // barrier before exiting). Returns how long rank 0 waited for every rank to see it complete,
  // about one round trip to the farthest rank.
  std::chrono::steady_clock::duration barrier(const std::string& name, bool last = true);
  // A barrier after which every rank starts at the same instant: rank 0 publishes a start time on
  // the run's common clock, ahead by twice the barrier's round trip plus 0.2 s so the farthest
  // rank reads it in time, and each rank sleeps until then. A plain barrier releases rank 0 last
  // (it lingers, and the peers leave as their replies arrive over links of different delay): up
  // to 1.7 s apart on DT-FM case 5's cities, a skew the simulator's ranks, which start together,
  // do not have and that asynchronous strategies (AD-PSGD) carry for several iterations.
  void start_together(const std::string& name);

 private:
  ClusterOptions options_;
  int rank_;
  int world_size_;
  std::chrono::milliseconds timeout_;
  std::int64_t epoch_ns_ = 0;
  c10::intrusive_ptr<c10d::Store> store_;
  CommGroupPtr world_;       // Gloo: every Send/Recv; NCCL: transfers up (to a higher rank)
  CommGroupPtr world_down_;  // NCCL only: transfers down
  std::map<GroupId, CommGroupPtr> groups_;
  std::map<GroupId, int> positions_;
};

}  // namespace geotrain
