#pragma once
// network.bandwidth_changes in the emulator, planned: the schedule both executors share
// (sim/topology/bandwidth_schedule.hpp) becomes timed `tc class change` commands on the very HTB
// classes make_plan() creates (rate = ceil = base x factor, burst recomputed for the new rate).
// The class is HTB's under both delay backends (netem hangs below it, the delayer sits on the
// receiver's ingress), so re-rating it is all a change needs. Pure: unit-tested without root;
// `geotrain emu up --dry-run` lists it. Applied by emu/launch/bandwidth_changer.hpp.
#include <string>
#include <vector>

#include "emu/net/cluster_layout.hpp"
#include "emu/net/command.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::emu {

// One pair's class re-rated at at_s (seconds since the workers started training).
struct TimedChange {
  double at_s = 0;
  int src = 0, dst = 0;  // devices = ranks of the cluster
  double factor = 1;
  double rate_Bps = 0;   // base (scaled) bandwidth x factor
  Command command;
};

struct BandwidthPlan {
  std::vector<TimedChange> changes;  // ordered by (at_s, src, dst)
  // Every re-rated class back at its configured rate: run when the run ends, so a borrowed
  // cluster (`emu up`) is left as it was.
  std::vector<Command> restore;
};

BandwidthPlan plan_bandwidth_changes(const Scenario& scenario, const ClusterLayout& layout);

// "# bandwidth changes (seconds after training starts):" then "at 20 s: <command>" per change
// and the restore commands; "" when there is no change.
std::string format_bandwidth_plan(const BandwidthPlan& plan);

}  // namespace geotrain::emu
