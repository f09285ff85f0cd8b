#include "sim/engine/rank_actor.hpp"

#include <simgrid/s4u.hpp>

#include <cmath>

#include <fmt/format.h>

#include "sim/engine/collective_runner.hpp"
#include "sim/engine/dynamic_runner.hpp"
#include "sim/engine/sim_clock.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

std::size_t RankActor::slot(int iteration, int index) const {
  return static_cast<std::size_t>(iteration) * ctx_.recorder().ops(rank_) +
         static_cast<std::size_t>(index);
}

void RankActor::operator()() {
  prepost_receives();
  const auto& ops = ctx_.program().ranks[static_cast<std::size_t>(rank_)];
  for (int it = 0; it < ctx_.settings().iterations; ++it) {
    for (std::size_t i = 0; i < ops.size(); ++i) {
      if (!ops[i].active_in(it)) continue;
      if (ops[i].as<ComputeOp>() && !ctx_.shared_cpu())
        i = compute_run(it, i);  // the last op of the run
      else
        run_op(it, static_cast<int>(i));
    }
    std::vector<int> all(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) all[i] = static_cast<int>(i);
    wait_ops(it, all);  // an iteration ends with nothing in flight
  }
  ctx_.finished()[static_cast<std::size_t>(rank_)] = true;
  finish_twins(ctx_, rank_);
}

void RankActor::prepost_receives() {
  const auto& ops = ctx_.program().ranks[static_cast<std::size_t>(rank_)];
  const std::size_t slots = ops.size() * static_cast<std::size_t>(ctx_.settings().iterations);
  recvs_.assign(slots, nullptr);
  payloads_.assign(slots, nullptr);
  pending_.assign(slots, nullptr);
  hub_recvs_.assign(slots, nullptr);
  // In program order, so that FIFO matching on each (src, dst, tag) mailbox pairs the k-th send
  // with the k-th receive.
  for (int it = 0; it < ctx_.settings().iterations; ++it)
    for (std::size_t i = 0; i < ops.size(); ++i)
      if (const auto* r = ops[i].as<RecvOp>(); r && ops[i].active_in(it)) {
        const std::size_t s = slot(it, static_cast<int>(i));
        if (P2PHub* hub = ctx_.hub_for(r->peer, rank_, r->tag))
          hub_recvs_[s] = hub->next_receive(r->peer, rank_);
        else
          recvs_[s] = ctx_.p2p_mailbox(r->peer, rank_, r->tag)->get_async<void>(&payloads_[s]);
      }
}

// Consecutive Compute ops (inactive ones skipped) as one sleep: each record gets the times its
// own sleep would have given (the clock advanced op by op), and SimGrid handles one event
// instead of one per op (DiLoCo's 50 inner steps are 150 ops per rank and round). Nothing the
// rank does between them could be seen by another rank: sends and collectives end a run.
std::size_t RankActor::compute_run(int iteration, std::size_t first) {
  const auto& ops = ctx_.program().ranks[static_cast<std::size_t>(rank_)];
  double clock = now();
  std::size_t last = first;
  for (std::size_t i = first; i < ops.size(); ++i) {
    if (!ops[i].active_in(iteration)) continue;
    const auto* c = ops[i].as<ComputeOp>();
    if (c == nullptr) break;
    const int index = static_cast<int>(i);
    OpRecord& rec = ctx_.recorder().at(rank_, iteration, index);
    rec.start_s = clock;
    clock += ctx_.compute_seconds(*c, rank_, iteration, index) +
             stragglers_.sleep_s(rank_, iteration, index, ops[i]);
    rec.end_s = clock;
    last = i;
  }
  if (clock > now()) sg4::this_actor::sleep_until(clock);
  return last;
}

void RankActor::run_op(int iteration, int index) {
  const Op& op = ctx_.program().ranks[static_cast<std::size_t>(rank_)][static_cast<std::size_t>(index)];
  OpRecord& rec = ctx_.recorder().at(rank_, iteration, index);
  rec.start_s = now();
  if (const auto* c = op.as<ComputeOp>()) {
    const double seconds = ctx_.compute_seconds(*c, rank_, iteration, index);
    if (auto* cpu = ctx_.shared_cpu()) {
      // Host cores: the straggler sleep uses no CPU; the op's CPU time runs on the shared cores.
      if (const double sleep = stragglers_.sleep_s(rank_, iteration, index, op); sleep > 0)
        sg4::this_actor::sleep_for(sleep);
      sg4::this_actor::exec_init(seconds * kCoreFlops)->set_host(cpu)->wait();
    } else {
      sg4::this_actor::sleep_for(seconds + stragglers_.sleep_s(rank_, iteration, index, op));
    }
    rec.end_s = now();
  } else if (const auto* s = op.as<SendOp>()) {
    send(iteration, index, *s, op.nonblocking);
  } else if (const auto* r = op.as<RecvOp>()) {
    rec.idle_from_s = rec.start_s;
    // The data was pre-posted at start; under rendezvous the sender still waits for this notice.
    if (ctx_.settings().rendezvous) ctx_.post_ready(Rendezvous::p2p, r->peer, rank_, r->tag);
    if (!op.nonblocking) wait_recv(iteration, index);
  } else if (const auto* col = op.as<CollectiveOp>()) {
    collective(iteration, index, *col, op.nonblocking);
  } else if (const auto* w = op.as<WaitOp>()) {
    wait_ops(iteration, w->ops);
    rec.end_s = now();
  } else if (const auto* d = op.as<DynamicOp>()) {
    // Blocking even when marked nonblocking: the builders never overlap them.
    ctx_.dynamic().run(rank_, iteration, index, *d, rec);
  }
}

// A buffered send (settings().buffered_sends): done as soon as the socket holds its bytes, i.e.
// now (the rendezvous is over). The bytes leave the connection's stream back to back after the
// ones before them, not side by side (gloo_replay.cpp), from a short-lived actor so that the
// next send on the lane is handed over at once too.
static void buffered_send(SimContext& ctx, int rank, int peer, sg4::Mailbox* mailbox, OpRecord& rec,
                          double bytes_sent) {
  const int src = ctx.device_of_rank(rank), dst = ctx.device_of_rank(peer);
  rec.bytes_sent = bytes_sent;
  double& free_at = ctx.stream_free_at(rank, peer, SimContext::p2p_stream);
  const double start = std::max(now(), free_at);
  free_at = start + rec.bytes_sent / ctx.flow_rate_Bps(src, dst);
  rec.transfer_start_s = start;
  rec.end_s = now();
  ctx.routes().count_bytes(src, dst, rec.bytes_sent);
  const auto bytes = static_cast<std::uint64_t>(std::llround(rec.bytes_sent));
  sg4::Actor::create(fmt::format("rank {} buffered send to {}", rank, peer), sg4::this_actor::get_host(),
                     [start, mailbox, bytes, r = &rec] {
                       if (start > now()) sg4::this_actor::sleep_until(start);
                       mailbox->put(r, bytes);  // the receiver learns when the data started to move
                     });
}

void RankActor::send(int iteration, int index, const SendOp& op, bool nonblocking) {
  OpRecord* rec = &ctx_.recorder().at(rank_, iteration, index);
  sg4::Mailbox* mailbox = ctx_.p2p_mailbox(rank_, op.peer, op.tag);
  const auto bytes = static_cast<std::uint64_t>(std::llround(op.bytes));
  SimContext* ctx = &ctx_;
  const int src = ctx_.device_of_rank(rank_);
  const int dst = ctx_.device_of_rank(op.peer);
  const int rank = rank_;
  if (ctx_.send_is_buffered(op.bytes)) {
    auto done = ctx_.send_lane(rank_, op.peer).submit([=] {
      if (ctx->settings().rendezvous) ctx->rendezvous().wait_ready(Rendezvous::p2p, rank, op.peer, op.tag);
      buffered_send(*ctx, rank, op.peer, mailbox, *rec, static_cast<double>(bytes));
    });
    if (nonblocking) pending_[slot(iteration, index)] = done;
    else done->wait();
    return;
  }
  if (P2PHub* hub = ctx_.hub_for(rank_, op.peer, op.tag)) {
    // A fan-in or fan-out of this tag: timed by the hub's fluid model (p2p_hub.hpp), still in
    // this connection's FIFO order, and without an actor when the connection is free.
    auto transfer = hub->next_send(rank_, op.peer);
    auto done = ctx_.send_lane(rank_, op.peer).start_or_submit([=] {
      hub->start(rank, op.peer, static_cast<double>(bytes), transfer, *rec);
      return std::shared_ptr<Completion>(transfer, &transfer->done);
    });
    if (nonblocking) pending_[slot(iteration, index)] = done;
    else done->wait();
    return;
  }
  auto done = ctx_.send_lane(rank_, op.peer).submit([=] {
    if (ctx->settings().rendezvous) ctx->rendezvous().wait_ready(Rendezvous::p2p, rank, op.peer, op.tag);
    rec->transfer_start_s = now();
    rec->bytes_sent = static_cast<double>(bytes);
    ctx->routes().count_bytes(src, dst, static_cast<double>(bytes));
    mailbox->put(rec, bytes);  // the receiver learns when the data started to move
    rec->end_s = now();
  });
  if (nonblocking) pending_[slot(iteration, index)] = done;
  else done->wait();
}

void RankActor::collective(int iteration, int index, const CollectiveOp& op, bool nonblocking) {
  OpRecord* rec = &ctx_.recorder().at(rank_, iteration, index);
  if (!nonblocking && ctx_.collectives_inline(rank_, op.group)) {
    run_collective(ctx_, rank_, op, *rec);  // what the group's lane would do, minus its actor
    rec->end_s = now();
    return;
  }
  SimContext* ctx = &ctx_;
  const int rank = rank_;
  auto done = ctx_.group_lane(rank_, op.group).submit([=] {
    run_collective(*ctx, rank, op, *rec);
    rec->end_s = now();
  });
  if (nonblocking) pending_[slot(iteration, index)] = done;
  else done->wait();
}

void RankActor::wait_recv(int iteration, int index) {
  const std::size_t s = slot(iteration, index);
  if (auto t = std::move(hub_recvs_[s])) {
    t->done.wait();
    OpRecord& rec = ctx_.recorder().at(rank_, iteration, index);
    rec.end_s = t->finish_s;
    if (t->sender) rec.idle_to_s = t->sender->transfer_start_s;
    return;
  }
  if (!recvs_[s]) return;
  recvs_[s]->wait();
  OpRecord& rec = ctx_.recorder().at(rank_, iteration, index);
  rec.end_s = recvs_[s]->get_finish_time();
  if (const auto* sender = static_cast<const OpRecord*>(payloads_[s]))
    rec.idle_to_s = sender->transfer_start_s;
  recvs_[s] = nullptr;
}

void RankActor::wait_ops(int iteration, const std::vector<int>& indices) {
  for (int i : indices) {
    const std::size_t s = slot(iteration, i);
    if (recvs_[s] || hub_recvs_[s]) wait_recv(iteration, i);
    if (pending_[s]) {
      pending_[s]->wait();
      pending_[s] = nullptr;
    }
  }
}

}  // namespace geotrain::engine
