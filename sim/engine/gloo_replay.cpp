#include "sim/engine/gloo_replay.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <deque>
#include <map>

#include "sim/common/error.hpp"
#include "sim/engine/sim_context.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

namespace {

// One send on the connection rank -> peer as Gloo's device thread drives it: after the previous
// send on this connection has left (its turn), once the peer's "ready" notice has arrived, and
// once the previous message has left the byte stream. Messages on one connection go back to
// back, not side by side: two segments sharing the link would both arrive late, while in a
// stream the first arrives a segment time earlier, which is what lets Gloo's loop post the
// next one.
void send_on_connection(SimContext* ctx, int rank, int peer, GroupId group, double bytes,
                        double rate_Bps, sg4::SemaphorePtr turn, sg4::SemaphorePtr next,
                        sg4::SemaphorePtr done) {
  turn->acquire();
  ctx->rendezvous().wait_ready(Rendezvous::collective, rank, peer, group);
  double& free_at = ctx->stream_free_at(rank, peer);
  const double start = std::max(sg4::Engine::get_clock(), free_at);
  free_at = start + bytes / rate_Bps;  // no simcall since the clock was read: nobody interleaves
  if (start > sg4::Engine::get_clock()) sg4::this_actor::sleep_until(start);
  auto comm = ctx->collective_mailbox(rank, peer, group)->put_async(&kNoPayload, bytes);
  next->release();
  comm->wait();
  done->release();
}

}  // namespace

double replay_gloo(SimContext& ctx, int rank, const Group& group,
                   const std::vector<GlooAction>& actions) {
  double sent = 0;
  const int device = ctx.device_of_rank(rank);
  std::map<int, sg4::SemaphorePtr> next_turn;  // per peer position: the next send's turn
  std::deque<sg4::CommPtr> recvs;
  std::deque<sg4::SemaphorePtr> sends;
  std::deque<void*> sinks;  // stable addresses for get_async
  for (const auto& a : actions) {
    const int peer = group.ranks[static_cast<std::size_t>(a.peer)];
    switch (a.kind) {
      case GlooAction::post_recv:
        sinks.push_back(nullptr);
        recvs.push_back(ctx.collective_mailbox(peer, rank, group.id)->get_async<void>(&sinks.back()));
        ctx.post_ready(Rendezvous::collective, peer, rank, group.id);
        break;
      case GlooAction::post_send: {
        auto& turn = next_turn[a.peer];
        if (!turn) turn = sg4::Semaphore::create(1);
        auto next = sg4::Semaphore::create(0);
        auto done = sg4::Semaphore::create(0);
        const double bytes = static_cast<double>(a.bytes);
        const double rate = ctx.flow_rate_Bps(device, ctx.device_of_rank(peer));
        sg4::Actor::create(fmt::format("rank {} gloo send to {}", rank, peer),
                           sg4::this_actor::get_host(),
                           [c = &ctx, rank, peer, g = group.id, bytes, rate, turn, next, done] {
                             send_on_connection(c, rank, peer, g, bytes, rate, turn, next, done);
                           });
        turn = next;
        sends.push_back(done);
        ctx.routes().count_bytes(device, ctx.device_of_rank(peer), bytes);
        sent += bytes;
        break;
      }
      case GlooAction::wait_recv:
        if (recvs.empty()) throw Error("gloo replay: wait for a receive that was never posted");
        recvs.front()->wait();
        recvs.pop_front();
        break;
      case GlooAction::wait_send:
        // Gloo waits on a completion count; sends to one peer complete in posting order.
        if (sends.empty()) throw Error("gloo replay: wait for a send that was never posted");
        sends.front()->acquire();
        sends.pop_front();
        break;
    }
  }
  if (!recvs.empty() || !sends.empty())
    throw Error(fmt::format("gloo replay: rank {} left {} receives and {} sends unwaited", rank,
                            recvs.size(), sends.size()));
  return sent;
}

}  // namespace geotrain::engine
