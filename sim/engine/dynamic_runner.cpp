#include "sim/engine/dynamic_runner.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "sim/common/overloaded.hpp"
#include "sim/engine/aggregated_ring.hpp"
#include "sim/engine/schedule_replay.hpp"
#include "sim/engine/sim_clock.hpp"
#include "sim/engine/sim_context.hpp"
#include "sim/program/collective_schedule.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

namespace {

// Mailbox keys of dynamic traffic, apart from the Program's group ids and tags.
constexpr int kGossipKey = 1 << 28;
constexpr int kPartialReduceKey = 1 << 29;
// A store message (key, value, header) of the partial-reduce protocol.
constexpr std::uint64_t kStoreMessageBytes = 128;

}  // namespace

// One closed window, shared by its members (one copy, not one per member: windows reach tens
// of thousands of members).
struct DynamicRunner::FormedWindow {
  long id = 0;                 // the window's number within its (group, tag)
  std::vector<int> positions;  // group positions, ascending
  std::shared_ptr<const std::vector<int>> ranks;  // the same members as ranks, ascending
  Group ring;                  // the members as a group, in position order (the ring's order)
};

struct DynamicRunner::Window {
  Window(const PartialReduceRule& r, int members, FullSyncBaton& baton)
      : rule(r, members, &baton),
        mutex(sg4::Mutex::create()),
        changed(sg4::ConditionVariable::create()),
        decided(static_cast<std::size_t>(members)) {}
  PartialReduceWindow rule;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr changed;
  long formed = 0;  // windows closed so far
  // decided[member]: the window it was ready in, until it takes it.
  std::vector<std::shared_ptr<const FormedWindow>> decided;
};

// One message of the coordinator protocol between two ranks' hosts (none when they are the
// same: rank 0 talks to its own store over loopback). In windows of more than
// simulation.aggregate_collectives_above members the message is timed as a lone transfer
// (latency + 128 B / bandwidth) instead of a flow: thousands of them at once on rank 0's NIC
// cost SimGrid O(N^2) re-sharing, for at most N x 128 B / bandwidth of time (3.4 ms for 32,768
// members at 1.25 GB/s).
void DynamicRunner::store_message(int from_rank, int to_rank, bool lone) {
  sg4::Host* from = ctx_.host_of_rank(from_rank);
  sg4::Host* to = ctx_.host_of_rank(to_rank);
  if (from == to) return;
  if (lone)
    sg4::this_actor::sleep_for(ctx_.step_seconds(ctx_.device_of_rank(from_rank),
                                                 ctx_.device_of_rank(to_rank),
                                                 static_cast<double>(kStoreMessageBytes)));
  else
    sg4::Comm::sendto(from, to, kStoreMessageBytes);
}

// SimGrid 3.32 crashes when an actor creates a Mutex (measured here), so every window, with its
// mutex and condition variable, is made before the actors start.
DynamicRunner::DynamicRunner(SimContext& ctx) : ctx_(ctx) {
  const Program& p = ctx.program();
  for (int r = 0; r < p.world_size; ++r)
    for (const auto& op : p.ranks[static_cast<std::size_t>(r)])
      if (const auto* d = op.as<DynamicOp>()) {
        const auto* rule = std::get_if<PartialReduceRule>(&d->rule);
        if (!rule) continue;
        auto& w = windows_[{d->group, d->tag}];
        if (!w) w = std::make_unique<Window>(*rule, static_cast<int>(p.group(d->group).ranks.size()),
                                         full_sync_baton_);
        auto& total = partial_total_[{r, d->group, d->tag}];
        for (int it = 0; it < ctx.settings().iterations; ++it) total += op.active_in(it) ? 1 : 0;
      }
}
DynamicRunner::~DynamicRunner() = default;

void DynamicRunner::run(int rank, int iteration, int index, const DynamicOp& op, OpRecord& record) {
  record.idle_from_s = record.start_s;
  Decision d = std::visit(
      Overloaded{[&](const GossipRule& rule) { return gossip(rank, op, rule, record); },
                 [&](const PartialReduceRule&) { return partial_reduce(rank, op, record); }},
      op.rule);
  decisions_.push_back({rank, iteration, index, rule_key(op.rule), d.round,
                        std::move(d.members), d.decided_s});
  record.end_s = now();
}

// The pairing is known as soon as the rank enters (no messages): it learns it at its start, and
// members hold the pair (the rank alone when the round leaves it out), as the worker records.
DynamicRunner::Decision DynamicRunner::gossip(int rank, const DynamicOp& op, const GossipRule& rule,
                                              OpRecord& record) {
  const Group& group = ctx_.program().group(op.group);
  const int members = static_cast<int>(group.ranks.size());
  const std::int64_t round = gossip_round_[{rank, op.group, op.tag}]++;
  const int partner_pos =
      pairing(op, rule, round, members)[static_cast<std::size_t>(ctx_.position(op.group, rank))];
  if (partner_pos < 0) {
    record.idle_to_s = record.start_s;
    return {round, std::make_shared<const std::vector<int>>(std::vector<int>{rank}), record.start_s};
  }
  const int partner = group.ranks[static_cast<std::size_t>(partner_pos)];
  exchange(rank, partner, op, record);
  return {round,
          std::make_shared<const std::vector<int>>(std::vector<int>{std::min(rank, partner), std::max(rank, partner)}),
          record.start_s};
}

void DynamicRunner::exchange(int rank, int partner, const DynamicOp& op, OpRecord& record) {
  const auto bytes = static_cast<std::uint64_t>(std::llround(op.bytes));
  const int key = kGossipKey + op.group * 1024 + op.tag;
  void* sender = nullptr;
  auto in = ctx_.collective_mailbox(partner, rank, key)->get_async<void>(&sender);
  // The worker exchanges with a Gloo send + recv: under rendezvous this rank's copy leaves once
  // the partner's "ready to receive" has crossed the link (rendezvous.hpp), so a pair that
  // starts apart finishes apart by one one-way delay.
  if (ctx_.settings().rendezvous) {
    ctx_.post_ready(Rendezvous::collective, partner, rank, key);
    ctx_.rendezvous().wait_ready(Rendezvous::collective, rank, partner, key);
  }
  record.transfer_start_s = now();
  ctx_.routes().count_bytes(ctx_.device_of_rank(rank), ctx_.device_of_rank(partner),
                            static_cast<double>(bytes));
  record.bytes_sent = static_cast<double>(bytes);
  // A buffered copy is this rank's no more once handed to the socket: only the partner's
  // arrival ends the exchange.
  if (ctx_.send_is_buffered(op.bytes)) {
    ctx_.collective_mailbox(rank, partner, key)->put_init(&record, bytes)->detach();
  } else {
    ctx_.collective_mailbox(rank, partner, key)->put_async(&record, bytes)->wait();
  }
  in->wait();
  const auto* other = static_cast<const OpRecord*>(sender);
  record.idle_to_s = other ? std::max(record.start_s, other->transfer_start_s) : record.start_s;
}

DynamicRunner::Window& DynamicRunner::window(const DynamicOp& op) {
  return *windows_.at({op.group, op.tag});
}

// A round's pairing is O(N) to draw and every member asks for it: drawn once and kept for the
// last kPairingsKept rounds of each op (ranks drift a few rounds apart; an older round asked
// again is drawn again, the same pairs).
const std::vector<int>& DynamicRunner::pairing(const DynamicOp& op, const GossipRule& rule,
                                               std::int64_t round, int members) {
  constexpr std::size_t kPairingsKept = 64;
  auto& kept = pairings_[{op.group, op.tag}];
  auto it = kept.find(round);
  if (it == kept.end()) {
    it = kept.emplace(round, gossip_pairing(rule.seed, round, members)).first;
    if (kept.size() > kPairingsKept) kept.erase(kept.begin() == it ? std::next(kept.begin()) : kept.begin());
  }
  return it->second;
}

// Members are the window's, as ranks; the rank learns them once the decision's messages are in.
DynamicRunner::Decision DynamicRunner::partial_reduce(int rank, const DynamicOp& op,
                                                      OpRecord& record) {
  const Group& group = ctx_.program().group(op.group);
  const int pos = ctx_.position(op.group, rank);
  const bool large = static_cast<int>(group.ranks.size()) > ctx_.settings().aggregate_collectives_above;
  // The coordinator sits next to the run's store on rank 0 (emu/worker/preduce_coordinator.hpp):
  // it hears of this member one message later and the member learns the decision three
  // messages after it was made (the store's answer to WAIT, then GET's round trip).
  store_message(rank, 0, large);
  const std::int64_t round = partial_done_[{rank, op.group, op.tag}];
  const auto window = await_window(rank, op);
  store_message(0, rank, large);
  store_message(rank, 0, large);
  store_message(0, rank, large);
  record.idle_to_s = now();
  Decision decision{round, window->ranks, now()};
  const auto& members = window->positions;
  if (members.size() < 2) return decision;
  const int k = static_cast<int>(members.size());
  const int me = static_cast<int>(std::lower_bound(members.begin(), members.end(), pos) - members.begin());
  record.transfer_start_s = now();
  // Above simulation.aggregate_collectives_above members the window's ring is the aggregated
  // one (aggregated_ring.hpp), as for a Collective op of that size.
  if (k > ctx_.settings().aggregate_collectives_above) {
    const int instance = ctx_.collectives().enter(window->ring.id, window->id, me, k, now());
    record.bytes_sent = run_aggregated_ring(ctx_, rank, window->ring, me, CollectiveKind::allreduce,
                                            op.bytes, instance, window->ring.id);
    return decision;
  }
  const auto steps = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::ring, k,
                                         me, 0, static_cast<std::size_t>(std::llround(op.bytes)));
  record.bytes_sent = replay_schedule(ctx_, rank, window->ring, steps);
  return decision;
}

// The member is ready; waits (closing the window when its time has come) until a closed window
// holds it. Returns that window.
std::shared_ptr<const DynamicRunner::FormedWindow> DynamicRunner::await_window(int rank, const DynamicOp& op) {
  Window& w = window(op);
  const int pos = ctx_.position(op.group, rank);
  std::unique_lock<sg4::Mutex> lock(*w.mutex);
  w.rule.ready(pos, now());
  w.changed->notify_all();  // a full window may now close at once
  auto& mine = w.decided[static_cast<std::size_t>(pos)];
  while (!mine) {
    const auto closes = w.rule.closes_at_s();
    if (closes && *closes <= now()) {
      auto formed = std::make_shared<FormedWindow>();
      formed->id = w.formed++;
      formed->positions = w.rule.close();
      const Group& group = ctx_.program().group(op.group);
      formed->ring = {kPartialReduceKey + op.group * 1024 + op.tag, group.name + " (partial)", {}};
      for (int m : formed->positions) formed->ring.ranks.push_back(group.ranks[static_cast<std::size_t>(m)]);
      auto ranks = formed->ring.ranks;
      std::sort(ranks.begin(), ranks.end());
      formed->ranks = std::make_shared<const std::vector<int>>(std::move(ranks));
      for (int m : formed->positions) w.decided[static_cast<std::size_t>(m)] = formed;
      w.changed->notify_all();
    } else if (closes) {
      w.changed->wait_until(lock, *closes);
    } else {
      w.changed->wait(lock);
    }
  }
  auto formed = std::move(mine);
  const std::tuple<int, GroupId, int> key{rank, op.group, op.tag};
  if (++partial_done_[key] == partial_total_.at(key)) {
    w.rule.leave(pos);
    w.changed->notify_all();  // a window (full sync) may have been waiting for this member
  }
  return formed;
}

}  // namespace geotrain::engine
