#include "emu/worker/p2p_order.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace geotrain {

namespace {

struct Transfer {
  int op = 0;
  double bytes = 0;
};

// Per ordered (sender, receiver): the sender's Sends to it and the receiver's Recvs from the
// sender, each in Program order.
struct Direction {
  std::vector<Transfer> sends, recvs;
};

std::map<std::pair<int, int>, Direction> directions(const Program& p, int iteration) {
  std::map<std::pair<int, int>, Direction> by_direction;
  for (int r = 0; r < p.world_size; ++r) {
    const auto& ops = p.ranks[static_cast<std::size_t>(r)];
    for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
      const auto& op = ops[static_cast<std::size_t>(i)];
      if (!op.active_in(iteration)) continue;
      if (const auto* s = op.as<SendOp>()) by_direction[{r, s->peer}].sends.push_back({i, s->bytes});
      if (const auto* v = op.as<RecvOp>()) by_direction[{v->peer, r}].recvs.push_back({i, v->bytes});
    }
  }
  return by_direction;
}

std::string describe(const Program& p, int rank, const Transfer& t, bool send) {
  return fmt::format("rank {} op {} ('{}', {} of {} bytes)", rank, t.op,
                     p.ranks[static_cast<std::size_t>(rank)][static_cast<std::size_t>(t.op)].label,
                     send ? "send" : "receive", t.bytes);
}

}  // namespace

std::string nccl_p2p_order_problem(const Program& program) {
  for (const int first : program_epochs(program)) {
    for (const auto& [direction, d] : directions(program, first)) {
      const auto [from, to] = direction;
      const std::size_t n = std::max(d.sends.size(), d.recvs.size());
      for (std::size_t k = 0; k < n; ++k) {
        const std::string where = fmt::format("rank {} to rank {}, transfer {} (iteration {})", from, to, k, first);
        if (k >= d.recvs.size())
          return fmt::format("{}: {} has no receive on rank {}", where, describe(program, from, d.sends[k], true), to);
        if (k >= d.sends.size())
          return fmt::format("{}: {} has no send on rank {}", where, describe(program, to, d.recvs[k], false), from);
        if (d.sends[k].bytes != d.recvs[k].bytes)
          return fmt::format("{}: {} meets {}", where, describe(program, from, d.sends[k], true),
                             describe(program, to, d.recvs[k], false));
      }
    }
  }
  return "";
}

}  // namespace geotrain
