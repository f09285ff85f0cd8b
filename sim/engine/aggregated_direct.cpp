#include "sim/engine/aggregated_direct.hpp"

#include <fmt/format.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "sim/common/small_math.hpp"
#include "sim/engine/fluid_groups.hpp"
#include "sim/program/collective_schedule.hpp"

namespace sg4 = simgrid::s4u;

namespace geotrain::engine {

namespace {

constexpr std::size_t kMaxClasses = 64;

enum class Shape { to_root, from_root, to_root_and_back, exchange };

Shape shape_of(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::gather:
    case CollectiveKind::reduce:
      return Shape::to_root;
    case CollectiveKind::scatter:
    case CollectiveKind::broadcast:
      return Shape::from_root;
    case CollectiveKind::allreduce:
      return Shape::to_root_and_back;
    case CollectiveKind::reduce_scatter:
    case CollectiveKind::allgather:
      return Shape::exchange;
  }
  return Shape::exchange;
}

struct Route {
  std::vector<sg4::Link*> links;
  double latency_s = 0;
};

Route route(sg4::Host* from, sg4::Host* to) {
  Route r;
  from->route_to(to, r.links, &r.latency_s);
  return r;
}

// One class of alike members (positions), with the NIC links its hosts' flows load.
struct MemberClass {
  std::vector<int> members;
  double entry_s = 0;  // the latest entry of its members
};

// What the last member to enter computes for all of them.
struct DirectPlan {
  std::vector<double> finish_s;  // by position
  std::vector<double> sent;      // bytes, by position
};

class DirectPlanner {
 public:
  DirectPlanner(SimContext& ctx, const Group& g, const CollectiveOp& op, const std::vector<double>& entry_s)
      : ctx_(ctx), g_(g), op_(op), entry_(entry_s), n_(static_cast<int>(g.ranks.size())),
        count_(static_cast<std::size_t>(std::llround(op.bytes))), shape_(shape_of(op.kind)),
        root_(root_position()) {}

  // A member's NIC links: the first link of its route out, the last of its route in.
  struct Nic {
    const sg4::Link* up = nullptr;
    const sg4::Link* down = nullptr;
  };

  DirectPlan plan() {
    DirectPlan out;
    out.finish_s = entry_;
    out.sent.assign(static_cast<std::size_t>(n_), 0.0);
    for (int p = 0; p < n_; ++p) out.sent[at(p)] = bytes_sent(p);
    if (ctx_.platform().kind == PlatformKind::pairs)
      plan_pairs(out);
    else
      plan_classes(out);
    return out;
  }

 private:
  int root_position() const {
    for (int i = 0; i < n_; ++i)
      if (g_.ranks[at(i)] == op_.root) return i;
    return 0;
  }
  sg4::Host* host(int position) const { return ctx_.host_of_rank(g_.ranks[at(position)]); }
  int device(int position) const { return ctx_.device_of_rank(g_.ranks[at(position)]); }
  double chunk(int q) const { return static_cast<double>(chunk_range(count_, n_, q).count); }
  double whole() const { return static_cast<double>(count_); }

  // Bytes of the transfer from position p to position q in the collective's one (or first) step.
  double transfer_bytes(int p, int q) const {
    if (shape_ == Shape::exchange) return chunk(op_.kind == CollectiveKind::reduce_scatter ? q : p);
    return whole();
  }

  double bytes_sent(int p) const {
    const double others = n_ - 1;
    switch (shape_) {
      case Shape::to_root: return p == root_ ? 0 : whole();
      case Shape::from_root: return p == root_ ? others * whole() : 0;
      case Shape::to_root_and_back: return p == root_ ? others * whole() : whole();
      case Shape::exchange:
        return op_.kind == CollectiveKind::reduce_scatter ? whole() - chunk(p) : others * chunk(p);
    }
    return 0;
  }

  // Every transfer on its own link: each ends at max(entries) + its lone-flow time.
  void plan_pairs(DirectPlan& out) {
    auto transfer = [&](int p, int q, double start) {
      const double bytes = transfer_bytes(p, q);
      ctx_.routes().count_bytes(device(p), device(q), bytes);
      return start + ctx_.step_seconds(device(p), device(q), bytes);
    };
    auto& f = out.finish_s;
    if (shape_ == Shape::exchange) {
      for (int p = 0; p < n_; ++p)
        for (int q = 0; q < n_; ++q) {
          if (p == q) continue;
          const double end = transfer(p, q, std::max(entry_[at(p)], entry_[at(q)]));
          f[at(p)] = std::max(f[at(p)], end);
          f[at(q)] = std::max(f[at(q)], end);
        }
      return;
    }
    std::vector<double> ready = entry_;  // when each member posts the step from the root
    if (shape_ != Shape::from_root) {
      for (int p = 0; p < n_; ++p) {
        if (p == root_) continue;
        const double end = transfer(p, root_, std::max(entry_[at(p)], entry_[at(root_)]));
        ready[at(p)] = f[at(p)] = end;
        f[at(root_)] = std::max(f[at(root_)], end);
      }
      ready[at(root_)] = f[at(root_)];
    }
    if (shape_ != Shape::to_root) {
      for (int q = 0; q < n_; ++q) {
        if (q == root_) continue;
        const double end = transfer(root_, q, std::max(ready[at(root_)], ready[at(q)]));
        f[at(q)] = std::max(f[at(q)], end);
        f[at(root_)] = std::max(f[at(root_)], end);
      }
    }
  }

  // The classes: hosts alike (zone, NIC bandwidths and latencies), same entry; the root apart.
  std::vector<MemberClass> classes() {
    using Key = std::tuple<const void*, double, double, double, double, double, bool>;
    std::vector<Key> keys(static_cast<std::size_t>(n_));
    const bool rooted = shape_ != Shape::exchange;
    nics_.resize(static_cast<std::size_t>(n_));
    for (int p = 0; p < n_; ++p) {
      const sg4::Link* up = route(host(p), host((p + 1) % n_)).links.front();
      const sg4::Link* down = route(host((p + 1) % n_), host(p)).links.back();
      nics_[at(p)] = {up, down};
      keys[at(p)] = {host(p)->get_englobing_zone(), up->get_bandwidth(), up->get_latency(),
                     down->get_bandwidth(), down->get_latency(), entry_[at(p)], rooted && p == root_};
    }
    auto group = [&](bool by_entry) {
      std::map<Key, int> index;
      std::vector<MemberClass> out;
      for (int p = 0; p < n_; ++p) {
        Key k = keys[at(p)];
        if (!by_entry) std::get<5>(k) = 0;
        auto [it, fresh] = index.emplace(k, static_cast<int>(out.size()));
        if (fresh) out.push_back({});
        auto& c = out[at(it->second)];
        c.entry_s = c.members.empty() ? entry_[at(p)] : std::max(c.entry_s, entry_[at(p)]);
        c.members.push_back(p);
      }
      return out;
    };
    auto exact = group(true);
    return exact.size() <= kMaxClasses ? exact : group(false);
  }

  // A group of the transfers from class a to class b (a member to itself excluded).
  FlowGroup flow_group(const std::vector<MemberClass>& cls, int a, int b, double start_s,
                       double bytes) {
    const auto& ca = cls[at(a)];
    const auto& cb = cls[at(b)];
    const int from = ca.members.front();
    const int to = a == b ? cb.members[1] : cb.members.front();
    const Route r = route(host(from), host(to));
    if (r.links.size() < 2)
      throw std::logic_error(fmt::format("aggregated direct collective: route {} -> {} has {} links "
                                         "(expected a NIC at each end)", from, to, r.links.size()));
    // SimGrid bounds a flow by its route's slowest link (FATPIPE WAN links share nothing).
    double bound = kInf;
    for (std::size_t i = 0; i < r.links.size(); ++i) {
      if (i > 0 && i + 1 < r.links.size() &&
          r.links[i]->get_sharing_policy() != sg4::Link::SharingPolicy::FATPIPE)
        throw std::logic_error("aggregated direct collective: a shared link between two NICs");
      bound = std::min(bound, r.links[i]->get_bandwidth());
    }
    const double self = a == b ? 1 : 0;
    FlowGroup f;
    f.start_s = start_s;
    f.latency_s = r.latency_s;
    f.bytes = bytes;
    f.bound_Bps = ctx_.transfer_model().rate_Bps(r.latency_s, bound);
    f.penalty = r.latency_s > 0 ? r.latency_s : 1.0;  // CM02: a zero-latency flow keeps penalty 1
    f.uses = {{2 * a, static_cast<double>(cb.members.size()) - self},
              {2 * b + 1, static_cast<double>(ca.members.size()) - self}};
    return f;
  }

  void plan_classes(DirectPlan& out) {
    const auto cls = classes();
    const int k = static_cast<int>(cls.size());
    std::vector<double> capacity(2 * at(k));
    for (int c = 0; c < k; ++c) {
      const Nic& nic = nics_[at(cls[at(c)].members.front())];
      capacity[2 * at(c)] = nic.up->get_bandwidth();
      capacity[2 * at(c) + 1] = nic.down->get_bandwidth();
    }
    std::vector<int> class_of(static_cast<std::size_t>(n_));
    for (int c = 0; c < k; ++c)
      for (int p : cls[at(c)].members) class_of[at(p)] = c;
    auto& f = out.finish_s;
    auto member_end = [&](int c, double end) {
      for (int p : cls[at(c)].members) f[at(p)] = std::max(f[at(p)], end);
    };
    if (shape_ == Shape::exchange) {
      std::vector<FlowGroup> groups;
      std::vector<std::pair<int, int>> ends;
      for (int a = 0; a < k; ++a)
        for (int b = 0; b < k; ++b) {
          if (a == b && cls[at(a)].members.size() < 2) continue;
          groups.push_back(flow_group(cls, a, b, std::max(cls[at(a)].entry_s, cls[at(b)].entry_s),
                                      static_cast<double>(count_) / n_));
          ends.emplace_back(a, b);
        }
      const auto done = solve_fluid_groups(groups, capacity);
      for (std::size_t i = 0; i < groups.size(); ++i) {
        member_end(ends[i].first, done[i]);
        member_end(ends[i].second, done[i]);
      }
    } else {
      const int r = class_of[at(root_)];
      std::vector<double> ready(at(k));
      for (int c = 0; c < k; ++c) ready[at(c)] = cls[at(c)].entry_s;
      if (shape_ != Shape::from_root) {
        std::vector<FlowGroup> groups;
        std::vector<int> senders;
        for (int c = 0; c < k; ++c) {
          if (c == r) continue;
          groups.push_back(flow_group(cls, c, r, std::max(cls[at(c)].entry_s, cls[at(r)].entry_s), whole()));
          senders.push_back(c);
        }
        const auto done = solve_fluid_groups(groups, capacity);
        for (std::size_t i = 0; i < groups.size(); ++i) {
          member_end(senders[i], done[i]);
          member_end(r, done[i]);
          ready[at(senders[i])] = done[i];
        }
        ready[at(r)] = f[at(root_)];
      }
      if (shape_ != Shape::to_root) {
        std::vector<FlowGroup> groups;
        std::vector<int> receivers;
        for (int c = 0; c < k; ++c) {
          if (c == r) continue;
          groups.push_back(flow_group(cls, r, c, std::max(ready[at(r)], ready[at(c)]), whole()));
          receivers.push_back(c);
        }
        const auto done = solve_fluid_groups(groups, capacity);
        for (std::size_t i = 0; i < groups.size(); ++i) {
          member_end(receivers[i], done[i]);
          member_end(r, done[i]);
        }
      }
    }
    count_class_bytes(cls, class_of[at(root_)], out);
  }

  // Bytes per link: each member's NICs its own; each WAN link the transfers between the classes
  // of its two ends (exact chunk sizes, as the message-level form counts them).
  // root_class: the root's class (rooted shapes).
  void count_class_bytes(const std::vector<MemberClass>& cls, int root_class, const DirectPlan& out) {
    auto& routes = ctx_.routes();
    for (int p = 0; p < n_; ++p) {
      routes.count_link_bytes(nics_[at(p)].up, out.sent[at(p)]);
      routes.count_link_bytes(nics_[at(p)].down, bytes_received(p));
    }
    // Transfers between classes a and b, summed exactly; WAN links are found on their routes.
    const int k = static_cast<int>(cls.size());
    std::vector<double> chunks(at(k), 0.0);  // sum of the members' own chunks, per class
    for (int c = 0; c < k; ++c)
      for (int p : cls[at(c)].members) chunks[at(c)] += chunk(p);
    const bool rs = op_.kind == CollectiveKind::reduce_scatter;
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b) {
        if (a == b) continue;
        const Route r = route(host(cls[at(a)].members.front()), host(cls[at(b)].members.front()));
        if (r.links.size() <= 2) continue;  // the same zone: no WAN link between them
        const auto na = static_cast<double>(cls[at(a)].members.size());
        const auto nb = static_cast<double>(cls[at(b)].members.size());
        const bool a_root = shape_ != Shape::exchange && a == root_class;
        const bool b_root = shape_ != Shape::exchange && b == root_class;
        double bytes = 0;
        switch (shape_) {
          case Shape::exchange: bytes = rs ? na * chunks[at(b)] : nb * chunks[at(a)]; break;
          case Shape::to_root: bytes = b_root ? na * whole() : 0; break;
          case Shape::from_root: bytes = a_root ? nb * whole() : 0; break;
          case Shape::to_root_and_back: bytes = b_root ? na * whole() : a_root ? nb * whole() : 0; break;
        }
        for (std::size_t i = 1; i + 1 < r.links.size(); ++i) routes.count_link_bytes(r.links[i], bytes);
      }
  }

  double bytes_received(int p) const {
    const double others = n_ - 1;
    switch (shape_) {
      case Shape::to_root: return p == root_ ? others * whole() : 0;
      case Shape::from_root: return p == root_ ? 0 : whole();
      case Shape::to_root_and_back: return p == root_ ? others * whole() : whole();
      case Shape::exchange:
        return op_.kind == CollectiveKind::reduce_scatter ? others * chunk(p) : whole() - chunk(p);
    }
    return 0;
  }

  SimContext& ctx_;
  const Group& g_;
  const CollectiveOp& op_;
  const std::vector<double>& entry_;
  int n_;
  std::size_t count_;
  Shape shape_;
  int root_;
  std::vector<Nic> nics_;  // by position, filled by classes()
};

}  // namespace

bool uses_aggregated_direct(CollectiveAlgorithm algorithm, int group_size,
                            const EngineSettings& settings, bool live_bandwidth) {
  return algorithm == CollectiveAlgorithm::direct && group_size > settings.aggregate_collectives_above &&
         !settings.rendezvous && !settings.buffered_sends && !live_bandwidth;
}

double run_aggregated_direct(SimContext& ctx, int rank, const CollectiveOp& op, int instance) {
  const Group& g = ctx.program().group(op.group);
  const int n = static_cast<int>(g.ranks.size());
  if (n < 2) return 0;
  const int p = ctx.position(op.group, rank);
  CollectiveInstance& inst = ctx.collectives().instance(instance);
  await_all_members(inst, n, [&] {
    DirectPlan plan = DirectPlanner(ctx, g, op, inst.entry_s).plan();
    inst.finish_s = std::move(plan.finish_s);
    inst.send_bytes = std::move(plan.sent);
  });
  const double end = inst.finish_s[at(p)];
  if (sg4::Engine::get_clock() < end) sg4::this_actor::sleep_until(end);
  return inst.send_bytes[at(p)];
}

}  // namespace geotrain::engine
