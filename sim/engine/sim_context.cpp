#include "sim/engine/sim_context.hpp"

#include "sim/engine/dynamic_runner.hpp"
#include "sim/engine/p2p_hub.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdint>
#include <set>

#include "sim/common/error.hpp"
#include "sim/engine/network_config.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

namespace {
enum Kind { kP2p = 0, kCollective = 1, kSendLane = 2, kGroupLane = 3 };

std::vector<std::size_t> ops_per_rank(const Program& p) {
  std::vector<std::size_t> n;
  for (const auto& ops : p.ranks) n.push_back(ops.size());
  return n;
}
}  // namespace

SimContext::SimContext(const Program& program, const EngineSettings& settings,
                       ComputeSeconds compute, Platform platform)
    : program_(program),
      settings_(settings),
      compute_(std::move(compute)),
      platform_(std::move(platform)),
      recorder_(ops_per_rank(program), settings.iterations),
      routes_(platform_.host_of_device),
      finished_(static_cast<std::size_t>(program.world_size), false),
      dynamic_(std::make_shared<DynamicRunner>(*this)) {
  // Closed forms (aggregated ring, Gloo replay) read the bandwidth the links have at that moment.
  routes_.set_live_bandwidth(!platform_.bandwidth_changes.empty());
  nonblocking_groups_.resize(program.ranks.size());
  for (std::size_t r = 0; r < program.ranks.size(); ++r)
    for (const Op& op : program.ranks[r])
      if (const auto* c = op.as<CollectiveOp>(); c && op.nonblocking) {
        auto& groups = nonblocking_groups_[r];
        if (std::find(groups.begin(), groups.end(), c->group) == groups.end()) groups.push_back(c->group);
      }
  make_hubs();
  std::set<GroupId> groups;
  bool other = !platform_.bandwidth_changes.empty();
  for (const auto& ops : program.ranks)
    for (const Op& op : ops) {
      if (const auto* c = op.as<CollectiveOp>()) groups.insert(c->group);
      else if (op.as<SendOp>() || op.as<RecvOp>() || op.as<DynamicOp>()) other = true;
    }
  ring_flows_meet_traffic_ = other || groups.size() > 1;
  twins_ = find_twin_ranks(*this);
  // Each rank's sends and receives are done before it enters its one collective and it only
  // computes after: a ring's flows, from its last entry on, share no NIC with anything (each
  // device has its own on the regions platform, the WAN links are FATPIPE).
  if (twins_.traffic_before_collective) ring_flows_meet_traffic_ = false;
}

// A hub per (rank, tag) with more distinct peers than aggregate_collectives_above, in one
// direction; only where the fluid model applies (no rendezvous, buffered sends or bandwidth
// changes: those keep every transfer a SimGrid flow).
void SimContext::make_hubs() {
  if (settings_.rendezvous || settings_.buffered_sends || !platform_.bandwidth_changes.empty()) return;
  for (std::size_t r = 0; r < program_.ranks.size(); ++r) {
    std::map<std::pair<bool, int>, std::set<int>> peers;  // (inbound?, tag) -> peers
    for (const Op& op : program_.ranks[r]) {
      if (const auto* s = op.as<SendOp>()) peers[{false, s->tag}].insert(s->peer);
      if (const auto* v = op.as<RecvOp>()) peers[{true, v->tag}].insert(v->peer);
    }
    for (const auto& [key, set] : peers)
      if (static_cast<int>(set.size()) > settings_.aggregate_collectives_above)
        hubs_.emplace(std::tuple{key.first, static_cast<int>(r), key.second},
                      std::make_shared<P2PHub>(*this, static_cast<int>(r), key.first));
  }
}

P2PHub* SimContext::hub_for(int src, int dst, int tag) const {
  if (hubs_.empty()) return nullptr;
  if (auto it = hubs_.find({true, dst, tag}); it != hubs_.end()) return it->second.get();
  if (auto it = hubs_.find({false, src, tag}); it != hubs_.end()) return it->second.get();
  return nullptr;
}

std::vector<P2PHub*> SimContext::hubs() const {
  std::vector<P2PHub*> out;
  for (const auto& [key, hub] : hubs_) out.push_back(hub.get());
  return out;
}

bool SimContext::collectives_inline(int rank, GroupId group) const {
  const auto& groups = nonblocking_groups_[static_cast<std::size_t>(rank)];
  return std::find(groups.begin(), groups.end(), group) == groups.end();
}

double SimContext::compute_seconds(const ComputeOp& op, int rank, int iteration, int op_index) const {
  return compute_(op, device_of_rank(rank), ComputeSite{rank, iteration, op_index});
}

sg4::Host* SimContext::host_of_rank(int rank) const {
  return platform_.host_of_device.at(static_cast<std::size_t>(device_of_rank(rank)));
}

int SimContext::position(GroupId group, int rank) {
  auto& map = positions_[group];
  if (map.empty()) {
    const auto& ranks = program_.group(group).ranks;
    for (std::size_t i = 0; i < ranks.size(); ++i) map.emplace(ranks[i], static_cast<int>(i));
  }
  auto it = map.find(rank);
  if (it == map.end())
    throw Error(fmt::format("rank {} runs a collective on group {} ('{}') it is not a member of",
                            rank, group, program_.group(group).name));
  return it->second;
}

// Mailbox::by_name and Actor::create are simcalls: the calling actor yields and others run. So
// nothing is put in the caches until the object exists (a placeholder would be seen as null).
sg4::Mailbox* SimContext::mailbox(int kind, int src, int dst, int key) {
  const std::tuple<int, int, int, int> k{kind, src, dst, key};
  if (auto it = mailboxes_.find(k); it != mailboxes_.end()) return it->second;
  auto* m = sg4::Mailbox::by_name(kind == kP2p ? fmt::format("p2p {}>{} tag {}", src, dst, key)
                                               : fmt::format("coll {}>{} group {}", src, dst, key));
  return mailboxes_.try_emplace(k, m).first->second;
}

sg4::Mailbox* SimContext::p2p_mailbox(int src, int dst, int tag) { return mailbox(kP2p, src, dst, tag); }

sg4::Mailbox* SimContext::collective_mailbox(int src, int dst, GroupId group) {
  return mailbox(kCollective, src, dst, group);
}

std::size_t SimContext::KeyHash::operator()(const std::tuple<int, int, int, int>& k) const noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the four ints, then a final mix
  for (int v : {std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k)})
    h = (h ^ static_cast<std::uint32_t>(v)) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h ^ (h >> 29));
}

Lane& SimContext::lane(int kind, int rank, int key) {
  const std::tuple<int, int, int, int> k{kind, rank, key, 0};
  if (auto it = lanes_.find(k); it != lanes_.end()) return *it->second;
  // Nothing here yields (a pool starts its actors on first work, not here).
  if (lane_pools_.empty()) lane_pools_.resize(static_cast<std::size_t>(program_.world_size));
  auto& pool = lane_pools_[static_cast<std::size_t>(rank)];
  if (!pool) pool = std::make_unique<LanePool>(host_of_rank(rank), fmt::format("rank {}", rank));
  return *lanes_.try_emplace(k, std::make_unique<Lane>(*pool)).first->second;
}

Lane& SimContext::send_lane(int rank, int dst) { return lane(kSendLane, rank, dst); }
Lane& SimContext::group_lane(int rank, GroupId group) { return lane(kGroupLane, rank, group); }

long SimContext::next_collective(int rank, GroupId group) { return sequence_[{rank, group}]++; }

bool SimContext::send_is_buffered(double bytes) const {
  return settings_.buffered_sends && bytes <= tcp_window_bytes(settings_.tcp_buffer_bytes);
}

void SimContext::post_ready(Rendezvous::Kind kind, int src, int dst, int key) {
  const double delay_s = routes_.route(device_of_rank(dst), device_of_rank(src)).latency_s;
  rendezvous_.post_ready(kind, src, dst, key, sg4::Engine::get_clock() + delay_s);
}

}  // namespace geotrain::engine

namespace geotrain::engine {

double SimContext::flow_latency_s(int src_device, int dst_device) {
  // Both models start a transfer one route latency after it is posted (no latency factor).
  return routes_.route(src_device, dst_device).latency_s;
}

double SimContext::step_seconds(int src_device, int dst_device, double bytes) {
  const RouteInfo& r = routes_.route(src_device, dst_device);
  return transfer_model().seconds(r.latency_s, r.bandwidth_Bps, bytes);
}

double SimContext::flow_rate_Bps(int src_device, int dst_device) {
  const RouteInfo& r = routes_.route(src_device, dst_device);
  return transfer_model().rate_Bps(r.latency_s, r.bandwidth_Bps);
}

TransferModel SimContext::transfer_model() const {
  return {settings_.network_model, settings_.tcp_buffer_bytes};
}

}  // namespace geotrain::engine
