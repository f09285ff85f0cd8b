// run_worker: the worker's life — join the cluster, run the steps, write the measurements.
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <torch/version.h>

#include "emu/worker/cluster.hpp"
#include "emu/worker/compute_device.hpp"
#include "emu/worker/cuda/cuda_runtime.hpp"
#include "emu/worker/interpreter.hpp"
#include "emu/worker/p2p_order.hpp"
#include "emu/worker/stage_memory.hpp"
#include "emu/worker/worker.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"

namespace geotrain {

namespace {

// NCCL runs a pair's transfers in posting order (p2p_order.hpp); a CUDA stage must fit in its
// share of the GPU (stage_memory.hpp). Both before the worker joins anyone.
void check_before_joining(const WorkerJob& job, const WorkerOptions& o, const ComputeDevice& device,
                          Transport transport) {
  if (transport == Transport::nccl)
    if (const auto problem = nccl_p2p_order_problem(job.program); !problem.empty())
      throw InputError("--backend nccl: this Program's transfers cannot run on NCCL, which ignores tags and "
                       "runs a pair's transfers in order: " + problem + " (expected --backend gloo)");
  if (!device.cuda()) return;
  const auto plan = make_rank_plan(job.program, o.rank, job.model.layers);
  const auto need = estimate_stage_memory(job, plan);
  const auto memory = cuda_rt::memory(device.compute().index());
  if (const auto problem = stage_fit_problem(need, static_cast<double>(memory.free_bytes), o.ranks_per_gpu,
                                             device.describe());
      !problem.empty())
    throw InputError(fmt::format("rank {}: {}", o.rank, problem));
}

void write_summary(Interpreter& in, const WorkerOptions& o, const ComputeDevice& device,
                   const std::string& path) {
  const auto& p = in.plan();
  const nlohmann::json j = {{"rank", o.rank},
                            {"weights_fnv1a", in.weights_fingerprint()},
                            {"stage", p.stage},
                            {"stages", p.stages},
                            {"replica", p.replica},
                            {"replicas", p.replicas},
                            {"layer_begin", p.layer_begin},
                            {"layer_end", p.layer_end},
                            {"parameters", in.parameter_count()},
                            {"entropy_rate_nats", in.source().entropy_rate_nats()},
                            {"steps", o.steps},
                            {"seed", o.seed},
                            {"threads", o.threads},
                            {"collectives", o.library_collectives ? "gloo" : "p2p"},
                            {"device", device.describe()},
                            {"backend", o.backend},
                            {"torch", TORCH_VERSION}};
  std::ofstream out(path);
  out << j.dump(1) << '\n';
  if (!out) throw Error("cannot write " + path);
}

}  // namespace

void run_worker(const WorkerJob& job, const WorkerOptions& options) {
  if (options.rank < 0 || options.rank >= job.program.world_size)
    throw InputError(fmt::format("--rank {} outside the Program's world of {} ranks", options.rank,
                                 job.program.world_size));
  const Transport transport = options.backend == "nccl" ? Transport::nccl : Transport::gloo;
  const ComputeDevice device(options.device, options.cuda_device, transport, options.rank);
  if (!transport_built(transport))
    throw InputError(fmt::format("--backend {}: not built into this geotrain-worker (docs/gpu.md)", options.backend));
  check_before_joining(job, options, device, transport);
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  ClusterOptions co{options.rank, options.store_addr, options.store_port, options.bind_addr,
                    options.timeout_s, transport};
  // On failure the cluster is deliberately not destroyed: Gloo threads may still be blocked on
  // a dead peer and their destructors would hang; the process exits right after the error.
  std::unique_ptr<Cluster> cluster;
  try {
    cluster = std::make_unique<Cluster>(co, job.program);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw Error(fmt::format("rank {}: joining the cluster (store {}:{}, {} on {}) failed after "
                            "at most {} s: {}",
                            options.rank, options.store_addr, options.store_port, options.backend,
                            options.bind_addr, options.timeout_s, what.substr(0, what.find('\n'))));
  }
  auto interpreter = std::make_unique<Interpreter>(job, options, *cluster, device);
  try {
    interpreter->warm_up_connections();
    cluster->start_together("start");
    for (int step = 0; step < options.steps; ++step) {
      interpreter->run_step(step);
      const auto& it = interpreter->measurements().iterations().back();
      log::info("emu.worker", "{:.3f} rank {}: step {} done in {:.3f} s, loss {:.4f}",
                cluster->now_s(), options.rank, step, it.time_s, it.loss);
    }
    interpreter->finish();  // coordinators serve peers that may still be in their last step
    cluster->barrier("end");
  } catch (...) {
    interpreter.release();
    cluster.release();
    throw;
  }
  interpreter->measurements().write(options.out_dir);
  write_summary(*interpreter, options, device, options.out_dir + "/worker.json");
}

}  // namespace geotrain
