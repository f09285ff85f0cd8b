#include "real/real_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "emu/net/shaping_commands.hpp"
#include "emu/worker/nccl_environment.hpp"
#include "sim/common/error.hpp"

namespace geotrain::real {

namespace {

std::string under(const std::string& dir, const std::string& name) {
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// Largest of the host's shaped links' 2 x bandwidth x RTT (either direction), and which.
std::pair<double, std::string> buffer_need(const HostNetwork& net, const HostsFile& hosts, int h) {
  double worst = 0;
  std::string which;
  for (int d = 0; d < net.hosts; ++d) {
    if (d == h) continue;
    const HostLink& out = net.link(h, d);
    const HostLink& back = net.link(d, h);
    const double rtt = out.delay_s + back.delay_s;
    for (const HostLink* l : {&out, &back}) {
      const double need = emu::tcp_buffer_need_bytes(l->bandwidth_Bps, rtt);
      if (need > worst)
        worst = need, which = fmt::format("{} -> {}", hosts.hosts[static_cast<std::size_t>(l->src_host)].name,
                                          hosts.hosts[static_cast<std::size_t>(l->dst_host)].name);
    }
  }
  return {worst, which};
}

void add_sysctls(const Scenario& s, const HostNetwork& net, const HostsFile& hosts, int h, HostPlan& p) {
  const auto [need, which] = buffer_need(net, hosts, h);
  p.tcp_buffer_bytes = std::max(s.tcp_buffer_bytes, std::ceil(need));
  if (p.tcp_buffer_bytes > s.tcp_buffer_bytes)
    p.notes.push_back(fmt::format("TCP buffer max {} bytes, above network.tcp_buffer ({} bytes): 2 x bandwidth x "
                                  "RTT of link {} (the simulator's window stays network.tcp_buffer)",
                                  static_cast<long long>(p.tcp_buffer_bytes),
                                  static_cast<long long>(s.tcp_buffer_bytes), which));
  p.sysctls = emu::tcp_sysctls("", p.tcp_buffer_bytes, s.emulation.congestion_control);
}

// HTB root, per destination host a class (and with netem its delay), then the filters.
std::vector<emu::Command> rate_commands(const HostNetwork& net, const HostsFile& hosts, int h, bool with_netem) {
  const std::string& dev = hosts.hosts[static_cast<std::size_t>(h)].interface;
  std::vector<emu::Command> out = {emu::htb_root("", dev)};
  for (int d = 0; d < net.hosts; ++d) {
    if (d == h) continue;
    out.push_back(emu::htb_class_command("", dev, "add", d, net.link(h, d).bandwidth_Bps));
    if (with_netem) out.push_back(emu::netem_delay("", dev, d, net.link(h, d).delay_s));
  }
  for (int d = 0; d < net.hosts; ++d)
    if (d != h) out.push_back(emu::destination_filter("", dev, hosts.hosts[static_cast<std::size_t>(d)].data_address, d));
  return out;
}

// The delayer variant: rates as above, the delayer, then the rules that feed it; undo reversed.
void add_delayer(const HostNetwork& net, const HostsFile& hosts, int h, const RealPlanOptions& o, HostPlan& p) {
  const HostSpec& self = hosts.hosts[static_cast<std::size_t>(h)];
  p.delayer = rate_commands(net, hosts, h, false);
  std::vector<emu::DelayerQueue> queues;
  std::vector<emu::Command> rules, undo;
  for (int s = 0; s < net.hosts; ++s) {
    const auto ns = std::llround(net.link(s, h).delay_s * 1e9);
    if (s == h || ns <= 0) continue;
    queues.push_back({s, ns});
    rules.push_back(emu::ingress_delay_rule("", "-A", hosts.hosts[static_cast<std::size_t>(s)].data_address, s));
    undo.push_back(emu::ingress_delay_rule("", "-D", hosts.hosts[static_cast<std::size_t>(s)].data_address, s));
  }
  for (int d = 0; d < net.hosts; ++d) {
    const auto ns = std::llround(net.link(h, d).delay_s * 1e9);
    if (d == h || ns <= 0) continue;
    const int queue = emu::egress_icmp_queue(d);
    queues.push_back({queue, ns});
    rules.push_back(emu::egress_icmp_delay_rule("", "-A", hosts.hosts[static_cast<std::size_t>(d)].data_address, queue));
    undo.push_back(emu::egress_icmp_delay_rule("", "-D", hosts.hosts[static_cast<std::size_t>(d)].data_address, queue));
  }
  std::reverse(undo.begin(), undo.end());
  if (!queues.empty()) {
    std::vector<std::string> args = emu::delayer_args("gt-real-" + self.name, queues, o.delayer);
    args.insert(args.begin(), self.delayer);
    p.delayer.push_back({emu::Tool::delayer, "", args});
    p.delayer.insert(p.delayer.end(), rules.begin(), rules.end());
    undo.push_back({emu::Tool::stop_delayer, "", {}});
  }
  undo.push_back({emu::Tool::tc, "", {"qdisc", "del", "dev", self.interface, "root"}});
  p.undo_delayer = undo;
}

void add_workers(const Scenario& s, const Program& program, const RealPlan& plan, const HostsFile& hosts,
                 int h, HostPlan& p) {
  const HostSpec& self = hosts.hosts[static_cast<std::size_t>(h)];
  for (int r = 0; r < program.world_size; ++r) {
    const int device = program.device_of_rank.at(static_cast<std::size_t>(r));
    if (hosts.host_of_rank.at(static_cast<std::size_t>(device)) != h) continue;
    WorkerLaunch w{r, device, {}, {}};
    const std::string port = std::to_string(plan.master_port);
    w.env = {{"RANK", std::to_string(r)}, {"WORLD_SIZE", std::to_string(program.world_size)},
             {"MASTER_ADDR", plan.master_addr}, {"MASTER_PORT", port}};
    w.argv = {self.worker, "--program", under(self.workdir, "job.json"), "--rank", std::to_string(r),
              "--store-addr", plan.master_addr, "--store-port", port, "--bind-addr", self.data_address,
              "--steps", std::to_string(s.training.steps), "--out", under(self.workdir, fmt::format("ranks/{}", r)),
              "--threads", std::to_string(s.emulation.torch_threads), "--seed", std::to_string(s.seed),
              "--collectives", worker_transport(s.emulation.collectives).collectives, "--device", self.device,
              "--timeout", fmt::format("{}", plan.timeout_s)};
    p.workers.push_back(std::move(w));
  }
}

}  // namespace

std::string netem_choice_name(NetemChoice choice) {
  return choice == NetemChoice::yes ? "yes" : choice == NetemChoice::no ? "no" : "auto";
}

std::string WorkerLaunch::line() const {
  std::string out = "env";
  for (const auto& [k, v] : env) out += " " + k + "=" + v;
  for (const auto& a : argv) out += " " + a;
  return out;
}

StoreTimeoutInputs store_timeout_inputs(const Topology& net, const Program& program) {
  StoreTimeoutInputs in;
  in.world_size = program.world_size;
  if (net.device_count() > 1) {
    const Topology::Stats stats = net.stats();
    in.max_round_trip_s = 2 * stats.max_delay_s;
    in.min_bandwidth_Bps = stats.min_bandwidth_Bps;
  }
  for (const auto& ops : program.ranks)
    for (const auto& op : ops) {
      double bytes = 0;
      if (const auto* send = op.as<SendOp>()) bytes = send->bytes;
      else if (const auto* c = op.as<CollectiveOp>()) bytes = c->bytes;
      else if (const auto* d = op.as<DynamicOp>()) bytes = d->bytes;
      in.largest_message_bytes = std::max(in.largest_message_bytes, bytes);
    }
  return in;
}

RealPlan make_real_plan(const Scenario& scenario, const Program& program, const HostsFile& hosts,
                        const RealPlanOptions& options) {
  const Topology topo = scenario.effective_network();
  const HostNetwork net = host_network(topo, hosts);
  RealPlan plan;
  plan.scenario = scenario.name, plan.hosts_path = hosts.path;
  plan.ranks = static_cast<int>(hosts.host_of_rank.size()), plan.world_size = program.world_size;
  plan.netem = options.netem;
  const int master_host = hosts.host_of_rank.at(static_cast<std::size_t>(program.device_of_rank.at(0)));
  plan.master_addr = hosts.hosts[static_cast<std::size_t>(master_host)].data_address;
  plan.master_port = options.master_port;
  plan.timeout_inputs = store_timeout_inputs(topo, program);
  plan.timeout_s = store_timeout_s(plan.timeout_inputs);
  plan.warnings = shaping_warnings(net, hosts);
  if (!scenario.bandwidth_changes.empty())
    plan.warnings.push_back("network.bandwidth_changes: not applied on real hosts yet; the plan shapes the base rates");
  for (int h = 0; h < net.hosts; ++h) {
    HostPlan p;
    p.host = hosts.hosts[static_cast<std::size_t>(h)];
    add_sysctls(scenario, net, hosts, h, p);
    if (net.hosts > 1) {
      if (options.netem != NetemChoice::no) {
        p.netem = rate_commands(net, hosts, h, true);
        p.undo_netem = {{emu::Tool::tc, "", {"qdisc", "del", "dev", p.host.interface, "root"}}};
      }
      if (options.netem != NetemChoice::yes) add_delayer(net, hosts, h, options, p);
    }
    add_workers(scenario, program, plan, hosts, h, p);
    plan.hosts.push_back(std::move(p));
  }
  return plan;
}

}  // namespace geotrain::real
