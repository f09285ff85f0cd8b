#include "emu/worker/pending_ops.hpp"

#include <fmt/format.h>

#include "emu/worker/cluster.hpp"
#include "sim/common/error.hpp"

namespace geotrain {

void PendingOps::complete(int i) {
  auto node = pending_.extract(i);
  if (node.empty()) return;
  PendingOp& p = node.mapped();
  double end_s = 0;
  if (p.future.valid()) {
    if (p.future.wait_for(ctx_.cluster.timeout()) != std::future_status::ready)
      throw TimeoutError(fmt::format("rank {} step {} op {} ('{}'): collective not done", ctx_.rank(),
                                     ctx_.step, i, ctx_.op(i).label),
                         ctx_.options.timeout_s);
    try {
      p.future.get();
    } catch (const InputError&) {
      throw;
    } catch (const std::exception& e) {
      ctx_.fail(i, e.what(), false);
    }
    end_s = *p.end_s;
    p.bytes = *p.sent;
    if (p.on_done) p.on_done();
  } else {
    try {
      for (auto& w : p.works) w->wait(ctx_.cluster.timeout());
    } catch (const std::exception& e) {
      const std::string what = e.what();
      ctx_.fail(i, what, what.find("imeout") != std::string::npos);
    }
    if (p.on_done) p.on_done();
    end_s = ctx_.cluster.now_s();  // completion seen when waited on (an upper bound if waited late)
  }
  ctx_.measurements.record_op({ctx_.step, i, p.start_s, end_s, p.bytes});
}

void PendingOps::complete_all() {
  while (!pending_.empty()) complete(pending_.begin()->first);
}

void PendingOps::complete_collectives() {
  std::vector<int> open;
  for (const auto& [i, p] : pending_) {
    // A pseudo-gradient exchange overlaps the inner steps by design (Streaming DiLoCo): only
    // its own Wait completes it.
    const auto* c = ctx_.op(i).as<CollectiveOp>();
    if (p.future.valid() && !(c && c->payload == Payload::pseudo_gradient)) open.push_back(i);
  }
  for (int i : open) complete(i);
}

}  // namespace geotrain
