#include "sim/engine/dynamic_runner.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <mutex>

#include "sim/common/overloaded.hpp"
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

// One message of the coordinator protocol between two hosts (none when they are the same:
// rank 0 talks to its own store over loopback).
void store_message(sg4::Host* from, sg4::Host* to) {
  if (from != to) sg4::Comm::sendto(from, to, kStoreMessageBytes);
}

}  // namespace

struct DynamicRunner::Window {
  Window(const PartialReduceRule& r, int members, FullSyncBaton& baton)
      : rule(r, members, &baton),
        mutex(sg4::Mutex::create()),
        changed(sg4::ConditionVariable::create()),
        decided(static_cast<std::size_t>(members)) {}
  PartialReduceWindow rule;
  sg4::MutexPtr mutex;
  sg4::ConditionVariablePtr changed;
  // decided[member]: the group (member positions) of the window it was ready in, until it takes it.
  std::vector<std::optional<std::vector<int>>> decided;
};

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
      gossip_pairing(rule.seed, round, members)[static_cast<std::size_t>(ctx_.position(op.group, rank))];
  if (partner_pos < 0) {
    record.idle_to_s = record.start_s;
    return {round, {rank}, record.start_s};
  }
  const int partner = group.ranks[static_cast<std::size_t>(partner_pos)];
  exchange(rank, partner, op, record);
  return {round, {std::min(rank, partner), std::max(rank, partner)}, record.start_s};
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

// Members are the window's, as ranks; the rank learns them once the decision's messages are in.
DynamicRunner::Decision DynamicRunner::partial_reduce(int rank, const DynamicOp& op,
                                                      OpRecord& record) {
  const Group& group = ctx_.program().group(op.group);
  const int pos = ctx_.position(op.group, rank);
  // The coordinator sits next to the run's store on rank 0 (emu/worker/preduce_coordinator.hpp):
  // it hears of this member one message later and the member learns the decision three
  // messages after it was made (the store's answer to WAIT, then GET's round trip).
  sg4::Host* member_host = ctx_.host_of_rank(rank);
  sg4::Host* coordinator_host = ctx_.host_of_rank(0);
  store_message(member_host, coordinator_host);
  const std::int64_t round = partial_done_[{rank, op.group, op.tag}];
  const std::vector<int> members = await_window(rank, op);
  store_message(coordinator_host, member_host);
  store_message(member_host, coordinator_host);
  store_message(coordinator_host, member_host);
  record.idle_to_s = now();
  Decision decision{round, {}, now()};
  for (int m : members) decision.members.push_back(group.ranks[static_cast<std::size_t>(m)]);
  std::sort(decision.members.begin(), decision.members.end());
  if (members.size() < 2) return decision;
  Group sub{kPartialReduceKey + op.group * 1024 + op.tag, group.name + " (partial)", {}};
  for (int m : members) sub.ranks.push_back(group.ranks[static_cast<std::size_t>(m)]);
  const int me = static_cast<int>(std::find(members.begin(), members.end(), pos) - members.begin());
  const auto steps = collective_schedule(CollectiveKind::allreduce, CollectiveAlgorithm::ring,
                                         static_cast<int>(members.size()), me, 0,
                                         static_cast<std::size_t>(std::llround(op.bytes)));
  record.transfer_start_s = now();
  record.bytes_sent = replay_schedule(ctx_, rank, sub, steps);
  return decision;
}

// The member is ready; waits (closing the window when its time has come) until a closed window
// holds it. Returns that window's members (group positions, ascending).
std::vector<int> DynamicRunner::await_window(int rank, const DynamicOp& op) {
  Window& w = window(op);
  const int pos = ctx_.position(op.group, rank);
  std::unique_lock<sg4::Mutex> lock(*w.mutex);
  w.rule.ready(pos, now());
  w.changed->notify_all();  // a full window may now close at once
  auto& mine = w.decided[static_cast<std::size_t>(pos)];
  while (!mine) {
    const auto closes = w.rule.closes_at_s();
    if (closes && *closes <= now()) {
      const auto formed = w.rule.close();
      for (int m : formed) w.decided[static_cast<std::size_t>(m)] = formed;
      w.changed->notify_all();
    } else if (closes) {
      w.changed->wait_until(lock, *closes);
    } else {
      w.changed->wait(lock);
    }
  }
  std::vector<int> members = std::move(*mine);
  mine.reset();
  const std::tuple<int, GroupId, int> key{rank, op.group, op.tag};
  if (++partial_done_[key] == partial_total_.at(key)) {
    w.rule.leave(pos);
    w.changed->notify_all();  // a window (full sync) may have been waiting for this member
  }
  return members;
}

}  // namespace geotrain::engine
