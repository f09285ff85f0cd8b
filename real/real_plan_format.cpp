// The parts of real_plan.hpp that write for people: the warnings about what per-host shaping
// cannot reproduce, and the listing `geotrain real plan` prints.
#include <fmt/format.h>

#include <algorithm>

#include "real/host_ranks.hpp"
#include "real/real_plan.hpp"
#include "sim/common/units.hpp"

namespace geotrain::real {

namespace {

constexpr std::size_t kListedLinks = 12;

std::string link_text(const RankLink& l) {
  return fmt::format("{}->{} ({}, {})", l.src, l.dst, units::format_duration(l.delay_s),
                     units::format_bandwidth(l.bandwidth_Bps));
}

std::string link_list(const std::vector<RankLink>& links) {
  std::string out;
  for (std::size_t i = 0; i < links.size() && i < kListedLinks; ++i) out += (i ? ", " : "") + link_text(links[i]);
  if (links.size() > kListedLinks) out += fmt::format(", ... ({} in all)", links.size());
  return out;
}

std::string host_link_warning(const HostLink& l, const HostsFile& hosts) {
  const std::string name = fmt::format("{} -> {}", hosts.hosts[static_cast<std::size_t>(l.src_host)].name,
                                       hosts.hosts[static_cast<std::size_t>(l.dst_host)].name);
  if (l.exact())
    return fmt::format("{}: the {} rank pairs share one class of {}: together they get what the scenario "
                       "gives each pair alone", name, l.pairs.size(), units::format_bandwidth(l.bandwidth_Bps));
  std::vector<RankLink> other;
  for (const auto& p : l.pairs)
    if (p.bandwidth_Bps != l.bandwidth_Bps || p.delay_s != l.delay_s) other.push_back(p);
  return fmt::format("{}: {} scenario links shaped as one class: bandwidth = their minimum {}, delay = their "
                     "median {}; {} of them differ from that: {}",
                     name, l.pairs.size(), units::format_bandwidth(l.bandwidth_Bps),
                     units::format_duration(l.delay_s), other.size(), link_list(other));
}

void commands(std::string& out, const std::vector<emu::Command>& list) {
  for (const auto& c : list) out += c.to_string() + "\n";
}

void format_host(std::string& out, const RealPlan& plan, const HostPlan& p) {
  const HostSpec& h = p.host;
  std::string ssh = h.address.to_string();
  for (const auto& o : h.ssh_options) ssh += " " + o;
  out += fmt::format("\n## host {}: ssh {}, interface {}, address {}, device {}, ranks {}\n", h.name, ssh,
                     h.interface, h.data_address, h.device, rank_list(h.ranks, 64));
  for (const auto& n : p.notes) out += "# note: " + n + "\n";
  out += "# sysctls (apply records each previous value and restores it on down)\n";
  commands(out, p.sysctls);
  if (!p.netem.empty()) {
    out += plan.netem == NetemChoice::auto_detect ? "# shaping if the kernel has sch_netem (apply probes it):\n"
                                                  : "# shaping (netem):\n";
    commands(out, p.netem);
  }
  if (!p.delayer.empty()) {
    out += plan.netem == NetemChoice::auto_detect ? "# shaping if it has not (geotrain-delayer):\n"
                                                  : "# shaping (geotrain-delayer):\n";
    commands(out, p.delayer);
  }
  if (p.netem.empty() && p.delayer.empty()) out += "# shaping: none (one host: no link leaves it)\n";
  out += "# workers (in their own session, output to <workdir>/ranks/<rank>/):\n";
  for (const auto& w : p.workers) out += w.line() + "\n";
  if (!p.undo_netem.empty()) {
    out += p.undo_delayer.empty() ? "# undo:\n" : "# undo (netem):\n";
    commands(out, p.undo_netem);
  }
  if (!p.undo_delayer.empty()) {
    out += p.undo_netem.empty() ? "# undo, in this order:\n" : "# undo (geotrain-delayer), in this order:\n";
    commands(out, p.undo_delayer);
  }
}

}  // namespace

std::vector<std::string> shaping_warnings(const HostNetwork& net, const HostsFile& hosts) {
  std::vector<std::string> out;
  for (int h = 0; h < net.hosts; ++h) {
    const auto& loop = net.loopback[static_cast<std::size_t>(h)];
    if (loop.empty()) continue;
    const HostSpec& host = hosts.hosts[static_cast<std::size_t>(h)];
    out.push_back(fmt::format("host {} runs ranks {}: their {} scenario links go over loopback, neither "
                              "delayed nor shaped: {}", host.name, rank_list(host.ranks), loop.size(), link_list(loop)));
  }
  for (int s = 0; s < net.hosts; ++s)
    for (int d = 0; d < net.hosts; ++d)
      if (s != d && net.link(s, d).pairs.size() > 1) out.push_back(host_link_warning(net.link(s, d), hosts));
  return out;
}

std::string format_real_plan(const RealPlan& plan) {
  std::string out = fmt::format("# real plan: scenario {} ({} ranks, world size {}) on {} hosts of {}\n",
                                plan.scenario, plan.ranks, plan.world_size, plan.hosts.size(), plan.hosts_path);
  out += fmt::format("# delay: --netem {}{}\n", netem_choice_name(plan.netem),
                     plan.netem == NetemChoice::auto_detect
                         ? " (decided on each host at apply time: netem where the kernel has sch_netem, "
                           "else geotrain-delayer; both listed)"
                         : "");
  const auto& t = plan.timeout_inputs;
  out += fmt::format("# store {}:{}; worker --timeout {} s = {} s + {} x (({} + 3 x {}) x RTT + 2 x {} / {}), "
                     "RTT {} (largest of the scenario; real/store_timeout.hpp)\n",
                     plan.master_addr, plan.master_port, plan.timeout_s, kStoreTimeoutFloor_s, kStoreTimeoutMargin,
                     kRendezvousRoundTrips, std::max(0, t.world_size - 1), units::format_bytes(t.largest_message_bytes),
                     units::format_bandwidth(t.min_bandwidth_Bps), units::format_duration(t.max_round_trip_s));
  out += plan.backend == "nccl"
             ? "# backend nccl: every process group over NCCL on each host's GPUs (--cuda-device: the rank's "
               "place among its host's ranks), NCCL's sockets on the host's interface, no InfiniBand\n"
             : "# backend gloo: every process group over Gloo (TCP) on the host's interface\n";
  out += "# every command runs as root on its host\n";
  for (const auto& w : plan.warnings) out += "# warning: " + w + "\n";
  for (const auto& h : plan.hosts) format_host(out, plan, h);
  return out;
}

}  // namespace geotrain::real
