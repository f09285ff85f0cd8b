#include "sim/engine/p2p_hub.hpp"

#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>

#include "sim/common/small_math.hpp"
#include "sim/engine/sim_clock.hpp"
#include "sim/engine/sim_context.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

P2PHub::P2PHub(SimContext& ctx, int hub_rank, bool inbound)
    : ctx_(ctx), hub_(hub_rank), inbound_(inbound), wake_(sg4::Semaphore::create(0)) {}

std::shared_ptr<HubTransfer> P2PHub::slot(int peer, bool sending) {
  const long k = (sending ? sends_ : receives_)[peer]++;
  auto& s = slots_[{peer, k}];
  auto out = s ? s : (s = std::make_shared<HubTransfer>());
  // Both sides have taken it: the map need not keep it (a long run has many).
  if ((sending ? receives_ : sends_)[peer] > k) slots_.erase({peer, k});
  return out;
}

std::shared_ptr<HubTransfer> P2PHub::next_send(int src, int dst) { return slot(inbound_ ? src : dst, true); }
std::shared_ptr<HubTransfer> P2PHub::next_receive(int src, int dst) {
  return slot(inbound_ ? src : dst, false);
}

void P2PHub::start(int src_rank, int dst_rank, double bytes, const std::shared_ptr<HubTransfer>& t,
                   OpRecord& sender) {
  const double t0 = now();
  const int src = ctx_.device_of_rank(src_rank);
  const int dst = ctx_.device_of_rank(dst_rank);
  sender.transfer_start_s = t0;
  sender.bytes_sent = bytes;
  t->sender = &sender;
  ctx_.routes().count_bytes(src, dst, bytes);
  const RouteInfo& route = ctx_.routes().route(src, dst);
  if (nic_Bps_ == 0) {
    // The hub's NIC: the route's first (outbound) or last (inbound) link; on the `pairs`
    // platform nothing is shared (each transfer alone: its rate is its bound).
    std::vector<sg4::Link*> links;
    ctx_.host_of_rank(src_rank)->route_to(ctx_.host_of_rank(dst_rank), links, nullptr);
    nic_Bps_ = ctx_.platform().kind == PlatformKind::pairs ? kInf
               : (inbound_ ? links.back() : links.front())->get_bandwidth();
  }
  advance(t0);
  const double bound = ctx_.flow_rate_Bps(src, dst);
  auto same = std::find_if(classes_.begin(), classes_.end(), [&](const RateClass& c) {
    return c.flow.latency_s == route.latency_s && c.flow.bound_Bps == bound;
  });
  if (same == classes_.end()) {
    RateClass c;
    c.flow.latency_s = route.latency_s;
    c.flow.bound_Bps = bound;
    c.flow.penalty = route.latency_s > 0 ? route.latency_s : 1.0;
    c.flow.uses = {{0, 0.0}};
    classes_.push_back(std::move(c));
    same = classes_.end() - 1;
  }
  pending_.push_back({t0 + route.latency_s, static_cast<int>(same - classes_.begin()), bytes, t});
  std::push_heap(pending_.begin(), pending_.end(), [](const Pending& a, const Pending& b) { return a.from > b.from; });
  wake_->release();
}

namespace {
bool later_end(const std::pair<double, std::shared_ptr<HubTransfer>>& a,
               const std::pair<double, std::shared_ptr<HubTransfer>>& b) {
  return a.first > b.first;
}
}  // namespace

void P2PHub::advance(double t) {
  for (auto& c : classes_)
    if (c.rate > 0 && !c.sending.empty()) c.served += c.rate * (t - last_);
  last_ = t;
}

void P2PHub::start_due(double t) {
  auto earlier = [](const Pending& a, const Pending& b) { return a.from > b.from; };
  while (!pending_.empty() && pending_.front().from <= t) {
    std::pop_heap(pending_.begin(), pending_.end(), earlier);
    Pending p = std::move(pending_.back());
    pending_.pop_back();
    RateClass& c = classes_[at(p.cls)];
    c.sending.emplace_back(c.served + p.bytes, std::move(p.transfer));
    std::push_heap(c.sending.begin(), c.sending.end(), later_end);
  }
}

void P2PHub::finish_due(double t) {
  for (auto& c : classes_) {
    // Done when (nearly) nothing is left: the wake-up was computed from the served bytes, so
    // rounding leaves a few bytes' worth (or a nanosecond's) at most.
    while (!c.sending.empty()) {
      const double left = c.sending.front().first - c.served;
      if (left > 1e-9 * std::max(1.0, c.sending.front().first) && !(c.rate > 0 && left / c.rate <= 1e-9))
        break;
      std::pop_heap(c.sending.begin(), c.sending.end(), later_end);
      auto tr = std::move(c.sending.back().second);
      c.sending.pop_back();
      tr->finish_s = t;
      if (tr->sender) tr->sender->end_s = t;
      tr->done.finish();
    }
  }
}

void P2PHub::reshare() {
  std::vector<int> sending;
  std::vector<FlowGroup> flows;
  for (std::size_t i = 0; i < classes_.size(); ++i) {
    classes_[i].flow.uses[0].second = static_cast<double>(classes_[i].sending.size());
    flows.push_back(classes_[i].flow);
    if (!classes_[i].sending.empty()) sending.push_back(static_cast<int>(i));
  }
  const auto rates = share_rates(flows, sending, {nic_Bps_});
  for (std::size_t i = 0; i < classes_.size(); ++i) classes_[i].rate = rates[i];
}

double P2PHub::next_event(double t) const {
  double next = pending_.empty() ? kInf : pending_.front().from;
  for (const auto& c : classes_)
    if (!c.sending.empty() && c.rate > 0)
      next = std::min(next, t + std::max(0.0, c.sending.front().first - c.served) / c.rate);
  return next;
}

void P2PHub::run() {
  for (;;) {
    const double t = now();
    advance(t);
    start_due(t);
    finish_due(t);
    reshare();
    const double next = next_event(t);
    if (std::isfinite(next)) {
      if (next > t) wake_->acquire_timeout(next - t);
    } else {
      wake_->acquire();
    }
  }
}

}  // namespace geotrain::engine
