#pragma once
// `geotrain real plan`: what apply and run would do on each host of a hosts file, computed
// without root, network or ssh. Per host: the sysctls, the shaping of its interface (an HTB root,
// one class and one filter per destination HOST, the delay by netem or by geotrain-delayer) with
// its undo, and the worker launch lines. The command text comes from emu/net (plan.hpp,
// shaping_commands.hpp), so a real host is shaped exactly as an emulated rank.
//
// Delay: netem where the host's kernel has sch_netem; otherwise the delayer as in the emulator
// (TCP and UDP held on the receiver's INPUT chain, one queue per source host; ICMP on the
// sender's OUTPUT chain, queue kEgressIcmpQueueBase + destination host). `--netem auto` leaves the
// choice to apply, which probes each host, so the plan lists both.
#include <string>
#include <utility>
#include <vector>

#include "emu/net/command.hpp"
#include "emu/net/plan.hpp"
#include "real/host_network.hpp"
#include "real/hosts_file.hpp"
#include "real/store_timeout.hpp"
#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::real {

enum class NetemChoice { yes, no, auto_detect };
std::string netem_choice_name(NetemChoice choice);  // "yes", "no", "auto"

struct RealPlanOptions {
  NetemChoice netem = NetemChoice::auto_detect;
  int master_port = 29500;
  emu::PlanOptions delayer;  // queue length, receive buffer, real-time priority (path: hosts file)
};

struct WorkerLaunch {
  int rank = 0;    // Program rank
  int device = 0;  // scenario rank (device) it runs as
  std::vector<std::pair<std::string, std::string>> env;
  std::vector<std::string> argv;  // argv[0]: the worker
  std::string line() const;       // "env K=V ... worker --flag value ..."
};

struct HostPlan {
  HostSpec host;
  double tcp_buffer_bytes = 0;
  std::vector<emu::Command> sysctls;
  std::vector<emu::Command> netem;    // with netem (empty under --netem no)
  std::vector<emu::Command> delayer;  // with geotrain-delayer (empty under --netem yes)
  std::vector<emu::Command> undo_netem, undo_delayer;
  std::vector<WorkerLaunch> workers;
  std::vector<std::string> notes;
};

struct RealPlan {
  std::string scenario, hosts_path;
  int ranks = 0, world_size = 0;
  NetemChoice netem = NetemChoice::auto_detect;
  std::string master_addr;
  int master_port = 0;
  std::string backend = "gloo";  // the workers' process groups: gloo, or nccl (worker_backend.hpp)
  StoreTimeoutInputs timeout_inputs;
  double timeout_s = 0;
  std::vector<HostPlan> hosts;
  std::vector<std::string> warnings;  // what per-host shaping cannot reproduce
};

RealPlan make_real_plan(const Scenario& scenario, const Program& program, const HostsFile& hosts,
                        const RealPlanOptions& options);

// The timeout's inputs from a scenario and its Program (largest Send, Collective or dynamic op).
StoreTimeoutInputs store_timeout_inputs(const Topology& net, const Program& program);

// What per-host shaping cannot reproduce, one line each (empty: it reproduces every link).
std::vector<std::string> shaping_warnings(const HostNetwork& net, const HostsFile& hosts);

// The listing `geotrain real plan` prints.
std::string format_real_plan(const RealPlan& plan);

}  // namespace geotrain::real
