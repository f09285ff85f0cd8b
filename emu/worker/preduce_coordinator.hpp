#pragma once
// Partial reduce at run time over the cluster's TCPStore (SD-Pipe; DiLoCo with an averaging
// timeout). The decision is the simulator's: sim/program/dynamic_rules.hpp's PartialReduceWindow,
// fed with the times the coordinator HEARS of each member, on the common clock (Cluster::now_s).
//
//   member (every rank of the group, at the Dynamic op):
//     set("<prefix>/a/<position>/<k>")                 one message to the store (no reply)
//     get("<prefix>/d/<position>/<k>")  ->  the positions that average together
//                                          (c10d: WAIT, answered once the key exists, then GET)
//   coordinator (a thread on rank 0, next to the store it serves, with its own connection):
//     polls each member's next arrival key locally, feeds arrivals to the window in the order
//     it hears of them, and closes the window when the rule says so (its deadline on the
//     coordinator's clock, or at once when every member is in), writing one key per member.
//
// Like SD-Pipe's scheduler it is one central process: a member far from rank 0 is heard one
// one-way delay after it is ready and learns the decision three one-way delays after it was
// made (WAIT's answer, then GET's round trip). The simulator models exactly these messages
// (sim/engine/dynamic_runner.cpp), so the two executors decide on the same times.
#include <atomic>
#include <cstdint>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include "emu/worker/cluster.hpp"
#include "sim/program/dynamic_rules.hpp"
#include "sim/program/program.hpp"

namespace geotrain {

// The member side: announces `position` ready for its k-th run of the op, blocks until the
// coordinator decided; returns the positions (ascending) of the window it is in.
std::vector<int> preduce_ready(c10d::Store& store, const std::string& prefix, int position,
                               std::int64_t k);

// Store key prefix of one partial-reduce op (group, tag): the same on every member.
std::string preduce_prefix(const DynamicOp& op);

class PreduceCoordinator {
 public:
  // Serves `arrivals` arrivals in total (members x steps x runs per step), then stops; runs on
  // rank 0 (the store's host) for every partial-reduce op of the Program, all sharing `baton`.
  PreduceCoordinator(Cluster& cluster, const DynamicOp& op, int members, std::int64_t arrivals,
                     FullSyncBaton& baton);
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
  FullSyncBaton& baton_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> done_{false};
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace geotrain
