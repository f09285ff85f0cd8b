#pragma once
// State shared by every actor of one simulation (SimGrid runs actors in one thread, one at a
// time, so plain data is safe here).
#include <functional>
#include <map>
#include <memory>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/engine/collective_registry.hpp"
#include "sim/engine/lane.hpp"
#include "sim/engine/network_config.hpp"
#include "sim/engine/op_recorder.hpp"
#include "sim/engine/platform.hpp"
#include "sim/engine/rendezvous.hpp"
#include "sim/engine/route_table.hpp"
#include "sim/engine/twin_ranks.hpp"
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/compute_sampler.hpp"

namespace simgrid::s4u {
class Mailbox;
}

namespace geotrain::engine {

// SimGrid refuses null payloads; collective messages and the aggregated ring's flows carry no data
// of their own, so every one of them carries the address of this int (nobody reads it).
inline int kNoPayload = 0;

// Seconds a compute op takes on a device at one execution (ComputeModel::seconds in production,
// a formula in tests); the site keys a sampled draw (simulation.compute_variance).
using ComputeSeconds = std::function<double(const ComputeOp&, int device, const ComputeSite& site)>;

struct EngineSettings {
  int iterations = 1;
  NetworkModel network_model = NetworkModel::flow;
  double tcp_buffer_bytes = 64.0 * 1024 * 1024;
  // Ring collectives over groups larger than this use the aggregated form (O(N) flows).
  int aggregate_collectives_above = 64;
  // Aggregated all-reduce rings larger than this evaluate their recurrence in O(N x G)
  // (ring_walk.hpp) instead of stepping it in O(N^2).
  int ring_closed_form_above = 8192;
  // Simulate one rank per set of twins where the Program allows it (twin_ranks.hpp).
  bool twin_ranks = true;
  bool rendezvous = false;  // Gloo's send/recv rendezvous (rendezvous.hpp)
  // A send of at most one TCP window completes when it is handed to the socket, not on arrival.
  bool buffered_sends = false;
  // emulation.collectives == gloo: the worker runs every collective with Gloo's own algorithm.
  bool library_collectives = false;
  // emulation.collectives == nccl: algorithm `library` is NCCL's own (modelled_algorithm).
  bool nccl_collectives = false;
  StragglerSpec stragglers;  // seeded sleeps before forward/backward ops (straggler_schedule.hpp)
};

class DynamicRunner;
class P2PHub;

class SimContext {
 public:
  SimContext(const Program& program, const EngineSettings& settings, ComputeSeconds compute,
             Platform platform);

  const Program& program() const { return program_; }
  const EngineSettings& settings() const { return settings_; }
  double compute_seconds(const ComputeOp& op, int rank, int iteration, int op_index) const;

  simgrid::s4u::Host* host_of_rank(int rank) const;
  // The emulation host's cores every rank computes on (simulation.host_cores), or nullptr.
  simgrid::s4u::Host* shared_cpu() const { return platform_.shared_cpu; }
  int device_of_rank(int rank) const { return program_.device_of_rank[static_cast<std::size_t>(rank)]; }
  // Position of `rank` in `group` (its index in Group::ranks).
  int position(GroupId group, int rank);

  // Point-to-point messages of the Program match by (src, dst, tag); collective messages by
  // (src, dst, group) in FIFO order (members run a group's collectives in the same order).
  simgrid::s4u::Mailbox* p2p_mailbox(int src, int dst, int tag);
  simgrid::s4u::Mailbox* collective_mailbox(int src, int dst, GroupId group);

  // The FIFO lane of sends rank -> dst, and of collectives of rank on group (created on first
  // use; run by the worker actors of the rank's LanePool).
  Lane& send_lane(int rank, int dst);
  Lane& group_lane(int rank, GroupId group);
  // Whether rank runs every collective on group blocking (then the lane would only ever hold
  // the one item the rank waits for: the rank actor runs it itself and no lane actor exists).
  bool collectives_inline(int rank, GroupId group) const;
  // Sequence number of rank's next collective on group.
  long next_collective(int rank, GroupId group);

  // A transfer alone on the route src -> dst under the scenario's network model: its latency
  // and its duration (network_config.hpp's closed forms of the flow and tcp models).
  double flow_latency_s(int src_device, int dst_device);
  double step_seconds(int src_device, int dst_device, double bytes);
  double flow_rate_Bps(int src_device, int dst_device);

  // Whether a send of `bytes` completes once handed to the socket (settings().buffered_sends
  // and at most one TCP window, the socket buffer the model already bounds flows with).
  bool send_is_buffered(double bytes) const;

  OpRecorder& recorder() { return recorder_; }
  CollectiveRegistry& collectives() { return collectives_; }
  RouteTable& routes() { return routes_; }
  const Platform& platform() const { return platform_; }
  std::vector<bool>& finished() { return finished_; }
  Rendezvous& rendezvous() { return rendezvous_; }
  DynamicRunner& dynamic() { return *dynamic_; }
  // The hub (p2p_hub.hpp) that carries transfers src -> dst of `tag`, or nullptr: the
  // receiver's inbound hub for the tag if it has one, else the sender's outbound hub.
  P2PHub* hub_for(int src, int dst, int tag) const;
  // Every hub, to start their actors.
  std::vector<P2PHub*> hubs() const;
  // Twin ranks (twin_ranks.hpp): whether `rank` runs as an actor, and the ranks it stands for.
  const TwinRanks& twin_ranks() const { return twins_; }
  bool simulated(int rank) const {
    return twins_.representative.empty() || twins_.representative[static_cast<std::size_t>(rank)] == rank;
  }
  const std::vector<int>& twins_of(int rank) const {
    static const std::vector<int> kNone;
    return twins_.twins.empty() ? kNone : twins_.twins[static_cast<std::size_t>(rank)];
  }
  // Whether an aggregated ring must load the links with its flows: not when the Program's only
  // traffic is collectives on one group and no bandwidth changes (DDP, local SGD, DiLoCo
  // without a timeout): a member enters ring k+1 only after leaving ring k, so the last entry
  // into ring k+1, where its flows would start, comes after every link of ring k is done, and
  // nothing else could meet them. Each member then leaves at its planned end, as with flows.
  // Nor when every rank's traffic is done before its one collective (twin_ranks.hpp).
  bool ring_flows_meet_traffic() const { return ring_flows_meet_traffic_; }  // gossip and partial reduce (dynamic_runner.hpp)
  // Receiver `dst` posts a receive from `src` now: its ready notice reaches `src` one physical
  // one-way delay later (the route's latency, not a model's transfer latency).
  void post_ready(Rendezvous::Kind kind, int src, int dst, int key);
  // When rank src's byte stream (one TCP connection) to rank dst is free again: messages on one
  // connection leave back to back, not side by side (gloo_replay.hpp). The worker's Send/Recv
  // go over the world process group, another connection than a group's collectives.
  enum Stream { collective_stream = 0, p2p_stream = 1 };
  double& stream_free_at(int src, int dst, Stream stream = collective_stream) {
    return stream_free_at_[{src, dst, stream}];
  }

  // The scenario's network model's closed forms (network_config.hpp).
  TransferModel transfer_model() const;

 private:
  simgrid::s4u::Mailbox* mailbox(int kind, int src, int dst, int key);
  Lane& lane(int kind, int rank, int key);

  const Program& program_;
  EngineSettings settings_;
  ComputeSeconds compute_;
  Platform platform_;
  OpRecorder recorder_;
  CollectiveRegistry collectives_;
  RouteTable routes_;
  // Hashed: a 65,536-device gpipe run looks mailboxes up ~1.5 million times (never iterated).
  struct KeyHash {
    std::size_t operator()(const std::tuple<int, int, int, int>& k) const noexcept;
  };
  std::unordered_map<std::tuple<int, int, int, int>, simgrid::s4u::Mailbox*, KeyHash> mailboxes_;
  std::unordered_map<std::tuple<int, int, int, int>, std::unique_ptr<Lane>, KeyHash> lanes_;
  std::vector<std::unique_ptr<LanePool>> lane_pools_;  // by rank, created on first use
  std::map<std::pair<int, int>, long> sequence_;
  std::map<std::tuple<int, int, int>, double> stream_free_at_;
  std::unordered_map<GroupId, std::unordered_map<int, int>> positions_;
  std::vector<bool> finished_;
  std::vector<std::vector<GroupId>> nonblocking_groups_;  // by rank: groups with a nonblocking collective
  Rendezvous rendezvous_;
  // (inbound?, hub rank, tag) -> hub: ranks that receive one tag from, or send it to, more than
  // aggregate_collectives_above distinct peers.
  std::map<std::tuple<bool, int, int>, std::shared_ptr<P2PHub>> hubs_;
  void make_hubs();
  bool ring_flows_meet_traffic_ = true;
  TwinRanks twins_;
  std::shared_ptr<DynamicRunner> dynamic_;  // shared_ptr: DynamicRunner is incomplete here
};

}  // namespace geotrain::engine
