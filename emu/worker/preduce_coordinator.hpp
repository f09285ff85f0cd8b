#pragma once
// Partial reduce at run time over the cluster's TCPStore (SD-Pipe; DiLoCo with an averaging
// timeout). The decision is the simulator's: sim/program/dynamic_rules.hpp's PartialReduceWindow,
// fed with the members' ready times on the common clock (Cluster::now_s).
//
//   member (every rank of the group, at the Dynamic op):
//     n = add("<prefix>/n", 1); set("<prefix>/a/<n>", "<position> <k> <ready_s>")
//     get("<prefix>/d/<position>/<k>")  ->  the positions that average together
//   coordinator (a thread in the process of the group's first rank, its own store connection):
//     reads arrivals in order, feeds them to the window in ready-time order, and closes the
//     window when the rule says so, writing one decision key per member of the window.
//
// Messages to the store cross the shaped links, so an arrival reaches the coordinator late.
// The coordinator therefore closes a window only `grace` after its deadline (1.5 x the largest
// arrival lag seen so far + 1 ms) and decides on the members' own ready times: a member ready
// before the deadline joins the window unless its message is later than that grace (then it
// opens the next window). A window every member is in closes at once, as in the simulator.
#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "emu/worker/cluster.hpp"
#include "sim/program/program.hpp"

namespace geotrain {

// The member side: announces `position` ready at `ready_s` for its k-th run of the op, blocks
// until the coordinator decided; returns the positions (ascending) of the window it is in.
std::vector<int> preduce_ready(c10d::Store& store, const std::string& prefix, int position,
                               std::int64_t k, double ready_s);

// Store key prefix of one partial-reduce op (group, tag): the same on every member.
std::string preduce_prefix(const DynamicOp& op);

class PreduceCoordinator {
 public:
  // Serves `arrivals` arrivals in total (members x steps x runs per step), then stops.
  PreduceCoordinator(Cluster& cluster, const DynamicOp& op, int members, std::int64_t arrivals);
  ~PreduceCoordinator();
  PreduceCoordinator(const PreduceCoordinator&) = delete;
  PreduceCoordinator& operator=(const PreduceCoordinator&) = delete;

  // Waits until every arrival was decided (or the timeout); rethrows the thread's error.
  void finish();

 private:
  void run();

  Cluster& cluster_;
  DynamicOp op_;
  int members_;
  std::int64_t arrivals_;
  std::string prefix_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace geotrain
