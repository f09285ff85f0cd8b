#pragma once
// The pure planner: scenario + options -> every command that builds the emulated cluster, in
// order, each with its undo. It reads nothing from the system, so golden lists pin it in unit
// tests without root and `geotrain emu up --dry-run` prints exactly what apply would run.
//
// Per rank (namespace gt-<cluster>-<rank>, interface eth0, see cluster_layout.hpp):
//  - egress: HTB root, one class per destination (rate = that pair's bandwidth), a u32
//    `match ip dst` filter per destination; with the netem backend a netem qdisc under each
//    class delays on the sender as DT-FM does;
//  - nfqueue backend: the receiver delays instead: iptables INPUT sends each source's non-ICMP
//    packets to its own NFQUEUE number (= the source rank), and a geotrain-delayer in the
//    namespace holds every queue's packets for that pair's one-way delay (ingress delay keeps
//    TCP small queues out of the way, which throttle a sender-side userspace delay). ICMP is
//    delayed on the sender's OUTPUT chain instead (queue kEgressIcmpQueueBase + destination),
//    so ping's kernel timestamps see 2 x delay (docs/emulated-network.md);
//  - sysctls: TCP buffer maxima for the bandwidth-delay product, no slow start after idle, no
//    cached metrics between connections.
#include <string>
#include <vector>

#include "emu/net/cluster_layout.hpp"
#include "emu/net/command.hpp"
#include "emu/net/shaping_commands.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::emu {

enum class Backend { netem, nfqueue };

// nfqueue backend: queue numbers below this are ingress queues (number = source rank), from it
// up egress ICMP queues (number = this + destination rank). NFQUEUE numbers are 16-bit.
inline constexpr int kEgressIcmpQueueBase = 32768;
inline constexpr int egress_icmp_queue(int destination) { return kEgressIcmpQueueBase + destination; }

struct PlanOptions {
  Backend backend = Backend::nfqueue;
  std::string delayer = "geotrain-delayer";  // path of the delayer executable
  int delayer_queue_maxlen = 65536;          // the kernel default 1024 overflows at 262 ms
  double delayer_rcvbuf_bytes = 64.0 * 1024 * 1024;
  int delayer_realtime_priority = 10;  // SCHED_FIFO priority; 0 = normal scheduling
};

struct Plan {
  ClusterLayout layout;
  Backend backend;
  std::vector<Step> steps;
  std::vector<std::string> notes;  // warnings a person should read (e.g. buffers too small)
};

Plan make_plan(const Scenario& scenario, const ClusterLayout& layout, const PlanOptions& options);

// Every command in order, one line each (the --dry-run output and the golden lists).
std::string format_plan(const Plan& plan);

std::string backend_name(Backend backend);

// The delayer's arguments (without its executable): --tag, one --queue <queue>:<delay ns> each
// (ingress queues before egress ICMP ones, as the caller lists them), queue length, receive
// buffer, real-time priority.
std::vector<std::string> delayer_args(const std::string& tag, const std::vector<DelayerQueue>& queues,
                                      const PlanOptions& options);

// `tc class <verb>` (add, change) of rank src's HTB class towards rank dst at rate_Bps (rate =
// ceil, burst from htb_burst_bytes): the class the plan creates, and what bandwidth changes
// re-rate (bandwidth_plan.hpp). The burst: htb_burst_bytes (shaping_commands.hpp).
Command htb_class(const ClusterLayout& layout, const std::string& verb, int src, int dst, double rate_Bps);

}  // namespace geotrain::emu
