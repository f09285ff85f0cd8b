#include "sim/engine/schedule_replay.hpp"

#include <simgrid/s4u.hpp>

#include "sim/engine/sim_context.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

double replay_schedule(SimContext& ctx, int rank, const Group& group,
                       const std::vector<CollectiveStep>& steps) {
  double sent = 0;
  const int device = ctx.device_of_rank(rank);
  std::vector<sg4::CommPtr> comms;
  std::vector<void*> sinks;
  for (const auto& step : steps) {
    comms.clear();
    sinks.assign(step.recvs.size(), nullptr);
    for (std::size_t i = 0; i < step.recvs.size(); ++i) {
      const int src = group.ranks[static_cast<std::size_t>(step.recvs[i].peer)];
      comms.push_back(ctx.collective_mailbox(src, rank, group.id)->get_async<void>(&sinks[i]));
      if (ctx.settings().rendezvous) ctx.post_ready(Rendezvous::collective, src, rank, group.id);
    }
    for (const auto& t : step.sends) {
      const int dst = group.ranks[static_cast<std::size_t>(t.peer)];
      // Sequential waits: a step's sends leave in schedule order, each once its receiver is ready.
      if (ctx.settings().rendezvous) ctx.rendezvous().wait_ready(Rendezvous::collective, rank, dst, group.id);
      // A buffered send is done once handed to the socket: the step waits for its receives only.
      if (ctx.send_is_buffered(static_cast<double>(t.count)))
        ctx.collective_mailbox(rank, dst, group.id)->put_init(&kNoPayload, t.count)->detach();
      else
        comms.push_back(ctx.collective_mailbox(rank, dst, group.id)->put_async(&kNoPayload, t.count));
      const auto bytes = static_cast<double>(t.count);
      ctx.routes().count_bytes(device, ctx.device_of_rank(dst), bytes);
      sent += bytes;
    }
    sg4::Comm::wait_all(comms);
  }
  return sent;
}

}  // namespace geotrain::engine
