#include "emu/net/plan.hpp"

#include <fmt/format.h>

#include <cmath>

#include "sim/common/error.hpp"
#include "sim/common/units.hpp"

namespace geotrain::emu {

namespace {

Command host(Tool tool, std::vector<std::string> args) { return {tool, "", std::move(args)}; }
Command in(const std::string& ns, Tool tool, std::vector<std::string> args) {
  return {tool, ns, std::move(args)};
}

void add_namespaces(const ClusterLayout& l, std::vector<Step>& out) {
  out.push_back({host(Tool::ip, {"netns", "add", l.hub_namespace()}),
                 host(Tool::ip, {"netns", "del", l.hub_namespace()})});
  for (int r = 0; r < l.ranks(); ++r)
    out.push_back({host(Tool::ip, {"netns", "add", l.rank_namespace(r)}),
                   host(Tool::ip, {"netns", "del", l.rank_namespace(r)})});
}

void add_links(const ClusterLayout& l, std::vector<Step>& out) {
  const std::string hub = l.hub_namespace();
  out.push_back({in(hub, Tool::ip, {"link", "set", "lo", "up"}), {}});
  out.push_back({in(hub, Tool::ip, {"link", "add", "br0", "type", "bridge"}), {}});
  out.push_back({in(hub, Tool::ip, {"link", "set", "br0", "up"}), {}});
  for (int r = 0; r < l.ranks(); ++r) {
    const std::string port = l.hub_port(r);
    out.push_back({in(hub, Tool::ip, {"link", "add", port, "type", "veth", "peer", "name", "eth0",
                                      "netns", l.rank_namespace(r)}), {}});
    out.push_back({in(hub, Tool::ip, {"link", "set", port, "master", "br0", "up"}), {}});
  }
  const std::string len = std::to_string(l.subnet().prefix_len);
  for (int r = 0; r < l.ranks(); ++r) {
    const std::string ns = l.rank_namespace(r);
    out.push_back({in(ns, Tool::ip, {"link", "set", "lo", "up"}), {}});
    out.push_back({in(ns, Tool::ip, {"addr", "add", l.rank_address(r) + "/" + len, "dev", "eth0"}), {}});
    out.push_back({in(ns, Tool::ip, {"link", "set", "eth0", "up"}), {}});
  }
}

void add_sysctls(const ClusterLayout& l, double buffer_bytes, const std::string& congestion_control,
                 std::vector<Step>& out) {
  for (int r = 0; r < l.ranks(); ++r)
    for (auto& c : tcp_sysctls(l.rank_namespace(r), buffer_bytes, congestion_control))
      out.push_back({std::move(c), {}});
}

void add_shaping(const ClusterLayout& l, const Topology& net, Backend backend,
                 std::vector<Step>& out) {
  for (int s = 0; s < l.ranks(); ++s) {
    const std::string ns = l.rank_namespace(s);
    out.push_back({htb_root(ns, "eth0"), {}});
    for (int d = 0; d < l.ranks(); ++d) {
      if (d == s) continue;
      out.push_back({htb_class(l, "add", s, d, net.bandwidth_Bps(s, d)), {}});
      if (backend == Backend::netem) out.push_back({netem_delay(ns, "eth0", d, net.delay_s(s, d)), {}});
    }
    for (int d = 0; d < l.ranks(); ++d) {
      if (d == s) continue;
      out.push_back({destination_filter(ns, "eth0", l.rank_address(d), d), {}});
    }
  }
}

// Per namespace one delayer serves two kinds of queue:
//  - ingress, queue = source rank: every packet from that source except ICMP, held on the
//    receiver's INPUT chain (TCP small queues would throttle a sender whose packets are held);
//  - egress ICMP, queue = kEgressIcmpQueueBase + destination rank: ICMP to that destination,
//    held on the sender's OUTPUT chain. A receiver takes ping's receive timestamp (SO_TIMESTAMP)
//    before the INPUT chain, so an echo reply delayed on ingress read as half the round trip;
//    delayed before it leaves, the request and the kernel's reply each carry their one-way
//    delay into the timestamp, and ping reports 2 x delay. ICMP is small: TSQ does not matter.
void add_delayers(const ClusterLayout& l, const Topology& net, const PlanOptions& o,
                  std::vector<Step>& out) {
  for (int r = 0; r < l.ranks(); ++r) {
    const std::string ns = l.rank_namespace(r);
    std::vector<DelayerQueue> queues;
    std::vector<int> sources, destinations;
    for (int s = 0; s < l.ranks(); ++s) {
      const auto delay_ns = std::llround(net.delay_s(s, r) * 1e9);
      if (s == r || delay_ns <= 0) continue;
      queues.push_back({s, delay_ns});
      sources.push_back(s);
    }
    for (int d = 0; d < l.ranks(); ++d) {
      const auto delay_ns = std::llround(net.delay_s(r, d) * 1e9);
      if (d == r || delay_ns <= 0) continue;
      queues.push_back({egress_icmp_queue(d), delay_ns});
      destinations.push_back(d);
    }
    if (queues.empty()) continue;
    const std::vector<std::string> args = delayer_args(ns, queues, o);
    // The delayer binds its queues before any rule sends packets to them.
    out.push_back({in(ns, Tool::delayer, args), in(ns, Tool::stop_delayer, {})});
    for (int s : sources) out.push_back({ingress_delay_rule(ns, "-A", l.rank_address(s), s), {}});
    for (int d : destinations)
      out.push_back({egress_icmp_delay_rule(ns, "-A", l.rank_address(d), egress_icmp_queue(d)), {}});
  }
}

void add_buffer_notes(const ClusterLayout& l, const Topology& net, double buffer_bytes,
                      std::vector<std::string>& notes) {
  // Linux gives the application half of tcp_rmem (tcp_adv_win_scale=1), so a flow needs a
  // buffer of about twice the bandwidth x round-trip product.
  double worst = 0;
  int ws = 0, wd = 0;
  for (int s = 0; s < l.ranks(); ++s)
    for (int d = 0; d < l.ranks(); ++d) {
      if (s == d) continue;
      const double need = tcp_buffer_need_bytes(net.bandwidth_Bps(s, d), net.delay_s(s, d) + net.delay_s(d, s));
      if (need > worst) worst = need, ws = s, wd = d;
    }
  if (worst > buffer_bytes)
    notes.push_back(fmt::format("network.tcp_buffer {} is below 2 x bandwidth x RTT of link {}->{} "
                                "({}): one TCP flow cannot fill that link",
                                units::format_bytes(buffer_bytes), ws, wd, units::format_bytes(worst)));
}

}  // namespace

std::vector<std::string> delayer_args(const std::string& tag, const std::vector<DelayerQueue>& queues,
                                      const PlanOptions& o) {
  std::vector<std::string> args = {"--tag", tag};
  for (const auto& q : queues) args.insert(args.end(), {"--queue", fmt::format("{}:{}", q.queue, q.delay_ns)});
  args.insert(args.end(), {"--queue-maxlen", std::to_string(o.delayer_queue_maxlen), "--rcvbuf",
                           std::to_string(static_cast<long long>(o.delayer_rcvbuf_bytes)),
                           "--realtime", std::to_string(o.delayer_realtime_priority)});
  return args;
}

Command htb_class(const ClusterLayout& l, const std::string& verb, int src, int dst, double rate_Bps) {
  return htb_class_command(l.rank_namespace(src), "eth0", verb, dst, rate_Bps);
}

std::string backend_name(Backend backend) {
  return backend == Backend::netem ? "netem" : "nfqueue";
}

Plan make_plan(const Scenario& scenario, const ClusterLayout& layout, const PlanOptions& options) {
  if (options.backend == Backend::nfqueue && layout.ranks() > kEgressIcmpQueueBase)
    throw InputError(fmt::format("{}: {} ranks: the nfqueue delay backend numbers its queues "
                                 "per rank below {} (expected at most {} ranks)", scenario.path,
                                 layout.ranks(), kEgressIcmpQueueBase, kEgressIcmpQueueBase));
  const Topology net = scenario.effective_network();
  if (net.device_count() != layout.ranks())
    throw InputError(fmt::format("{}: the network has {} devices but the cluster {} ranks",
                                 scenario.path, net.device_count(), layout.ranks()));
  for (int s = 0; s < layout.ranks(); ++s)
    for (int d = 0; d < layout.ranks(); ++d)
      if (s != d && !(net.bandwidth_Bps(s, d) > 0))
        throw InputError(fmt::format("{}: link {}->{} has no bandwidth (every pair needs a link "
                                     "to be emulated)", scenario.path, s, d));
  Plan plan{layout, options.backend, {}, {}};
  add_namespaces(layout, plan.steps);
  add_links(layout, plan.steps);
  add_sysctls(layout, scenario.tcp_buffer_bytes, scenario.emulation.congestion_control, plan.steps);
  add_shaping(layout, net, options.backend, plan.steps);
  if (options.backend == Backend::nfqueue) add_delayers(layout, net, options, plan.steps);
  add_buffer_notes(layout, net, scenario.tcp_buffer_bytes, plan.notes);
  for (auto& step : plan.steps)
    if (step.action.tool == Tool::delayer) step.action.args.insert(step.action.args.begin(), options.delayer);
  return plan;
}

std::string format_plan(const Plan& plan) {
  std::string out = fmt::format("# cluster {}: {} ranks, subnet {}, delay backend {}\n",
                                plan.layout.cluster(), plan.layout.ranks(),
                                plan.layout.subnet().to_string(), backend_name(plan.backend));
  for (const auto& note : plan.notes) out += "# note: " + note + "\n";
  for (const auto& step : plan.steps) out += step.action.to_string() + "\n";
  out += "# undo, in this order:\n";
  for (auto it = plan.steps.rbegin(); it != plan.steps.rend(); ++it)
    if (it->undo) out += it->undo->to_string() + "\n";
  return out;
}

}  // namespace geotrain::emu
