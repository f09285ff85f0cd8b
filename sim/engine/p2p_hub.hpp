#pragma once
// Point-to-point fan-in and fan-out without one SimGrid flow per transfer: a rank that receives
// one tag from more than simulation.aggregate_collectives_above distinct peers (HetPipe's
// parameter server taking every virtual worker's push), or sends one tag to that many (its
// pulls), is a hub for that tag. SimGrid would re-share every flow on the hub's NIC each time
// one of them ends: O(N) per end, O(N^2) per fan.
//
// The hub's transfers are timed by its own fluid model in simulated time (a daemon actor per
// hub). Transfers with the same route latency (SimGrid's sharing penalty) and bound (slowest
// link) are one rate class: max-min weighted by latency, as SimGrid's CM02 shares flows, gives
// every sending flow of a class the same rate at every moment, so a class keeps one count and
// one virtual clock of bytes served per flow, and its flows end in the order of (clock at their
// start + bytes): a heap. The hub re-solves the classes' shares (fluid_groups.hpp) when a
// transfer starts sending (after its latency) or ends, and wakes when the next one will:
// O(classes + log N) per event however many transfers are in flight. On the `pairs` platform
// the hub's transfers share no link: each is timed alone.
//
// Exact under `flow` when the hub's NIC and the peers' NICs carry only the hub's transfers
// while they run; what else crosses them (a parameter server's own pipeline traffic) neither
// slows them nor is slowed (tested against the message-level form: docs/simulator-models.md).
// FIFO per (peer, hub, tag) as the mailboxes: the k-th send matches the k-th receive.
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include <simgrid/s4u/Semaphore.hpp>

#include "sim/engine/fluid_groups.hpp"
#include "sim/engine/lane.hpp"
#include "sim/engine/op_recorder.hpp"

namespace geotrain::engine {

class SimContext;

// One transfer through a hub: both ends wait on `done`.
struct HubTransfer {
  Completion done;
  double finish_s = -1;
  OpRecord* sender = nullptr;  // the send's record: its transfer start (for the receiver's idle
                               // time) and its end, set when the transfer arrives
};

class P2PHub {
 public:
  // inbound: the hub receives its tag from many peers; otherwise it sends it to many
  // (SimContext keys hubs by rank and tag; the model does not depend on the tag).
  P2PHub(SimContext& ctx, int hub_rank, bool inbound);
  P2PHub(const P2PHub&) = delete;
  P2PHub& operator=(const P2PHub&) = delete;

  // The k-th transfer src -> dst (ranks; one of them the hub), k counted per side in program
  // order (the sender's lane runs its sends in order; the receiver pre-posts in order).
  std::shared_ptr<HubTransfer> next_send(int src, int dst);
  std::shared_ptr<HubTransfer> next_receive(int src, int dst);

  // Called by the sending side when its turn on the connection has come: the transfer starts
  // moving now; t->done completes when it has arrived (it sets the sender's end_s). Counts the
  // bytes on the route. Does not block.
  void start(int src, int dst, double bytes, const std::shared_ptr<HubTransfer>& t, OpRecord& sender);

  // The daemon actor's body (simulation.cpp starts one per hub, on the hub rank's host).
  void run();
  int rank() const { return hub_; }

 private:
  // Transfers in flight with one route latency and bound.
  struct RateClass {
    FlowGroup flow;          // uses[0].second: how many are sending now
    double served = 0;       // bytes each sending flow of the class has moved since the start
    double rate = 0;         // per flow
    // (served at which it ends, transfer), smallest first
    std::vector<std::pair<double, std::shared_ptr<HubTransfer>>> sending;
  };
  struct Pending {  // in its latency phase until `from`
    double from = 0;
    int cls = 0;
    double bytes = 0;
    std::shared_ptr<HubTransfer> transfer;
  };
  std::shared_ptr<HubTransfer> slot(int peer, bool sending);
  void advance(double now);  // every class's clock on to `now`
  void start_due(double now);
  void finish_due(double now);
  void reshare();
  double next_event(double now) const;

  SimContext& ctx_;
  int hub_;
  bool inbound_;
  double nic_Bps_ = 0;  // the hub's NIC (inbound: its download side); 0: no shared link (pairs)
  double last_ = 0;
  std::vector<RateClass> classes_;
  std::vector<Pending> pending_;  // a heap on `from`, earliest first
  // (peer, k) -> transfer; counters of sends and receives per peer.
  std::map<std::pair<int, long>, std::shared_ptr<HubTransfer>> slots_;
  std::map<int, long> sends_, receives_;
  simgrid::s4u::SemaphorePtr wake_;
};

}  // namespace geotrain::engine
