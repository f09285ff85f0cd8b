#pragma once
// One SimGrid actor per Program rank, interpreting its ops in order for every iteration:
//  Compute    -> sleep for ComputeModel::seconds at (rank, iteration, op index) (compute never
//                shares a device here; the site keys a sampled compute time), or, with
//                simulation.host_cores, an execution of that many CPU seconds on the shared
//                host, whose cores all ranks' computations share
//  Send       -> queued on the rank's FIFO lane to that peer (blocking: waits for delivery)
//  Recv       -> every receive is pre-posted when the rank starts, so a sender never waits for
//                its receiver to reach the op (pipelines overlap as with pre-posted NCCL/Gloo
//                receives); the op waits for the data
//  Collective -> queued on the rank's lane for that group (collective_runner.hpp)
//  Wait       -> blocks until the named nonblocking ops are done
//  Dynamic    -> gossip / partial reduce (dynamic_runner.hpp)
// Forward/backward Compute ops first sleep the scenario's seeded straggler delay, if any.
// Nonblocking ops left unwaited are waited at the end of each iteration. Ops inactive in an
// iteration (Op::iterations) are skipped and leave their record empty (OpRecord::ran).
#include <memory>
#include <vector>

#include <simgrid/s4u/Comm.hpp>

#include "sim/engine/p2p_hub.hpp"
#include "sim/engine/sim_context.hpp"
#include "sim/workload/straggler_schedule.hpp"

namespace geotrain::engine {

class RankActor {
 public:
  RankActor(SimContext& ctx, int rank)
      : ctx_(ctx), rank_(rank), stragglers_(ctx.settings().stragglers) {}
  void operator()();

 private:
  void prepost_receives();
  void run_op(int iteration, int index);
  std::size_t compute_run(int iteration, std::size_t first);
  void send(int iteration, int index, const SendOp& op, bool nonblocking);
  void collective(int iteration, int index, const CollectiveOp& op, bool nonblocking);
  void wait_recv(int iteration, int index);
  void wait_ops(int iteration, const std::vector<int>& indices);
  std::size_t slot(int iteration, int index) const;

  SimContext& ctx_;
  int rank_;
  StragglerSchedule stragglers_;
  std::vector<simgrid::s4u::CommPtr> recvs_;  // by slot, pre-posted
  std::vector<void*> payloads_;               // by slot: the sender's OpRecord
  std::vector<std::shared_ptr<Completion>> pending_;  // by slot: queued sends/collectives
  std::vector<std::shared_ptr<HubTransfer>> hub_recvs_;  // by slot: receives through a hub
};

}  // namespace geotrain::engine
