// run_worker: the worker's life — join the cluster, run the steps, write the measurements.
#include <fstream>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "emu/worker/cluster.hpp"
#include "emu/worker/interpreter.hpp"
#include "emu/worker/worker.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"

namespace geotrain {

namespace {

void write_summary(Interpreter& in, const WorkerOptions& o, const std::string& path) {
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
                            {"collectives", o.library_collectives ? "gloo" : "p2p"}};
  std::ofstream out(path);
  out << j.dump(1) << '\n';
  if (!out) throw Error("cannot write " + path);
}

}  // namespace

void run_worker(const WorkerJob& job, const WorkerOptions& options) {
  if (options.rank < 0 || options.rank >= job.program.world_size)
    throw InputError(fmt::format("--rank {} outside the Program's world of {} ranks", options.rank,
                                 job.program.world_size));
  torch::set_num_threads(options.threads);
  torch::manual_seed(options.seed);
  ClusterOptions co{options.rank, options.store_addr, options.store_port, options.bind_addr,
                    options.timeout_s};
  // On failure the cluster is deliberately not destroyed: Gloo threads may still be blocked on
  // a dead peer and their destructors would hang; the process exits right after the error.
  std::unique_ptr<Cluster> cluster;
  try {
    cluster = std::make_unique<Cluster>(co, job.program);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw Error(fmt::format("rank {}: joining the cluster (store {}:{}, Gloo on {}) failed after "
                            "at most {} s: {}",
                            options.rank, options.store_addr, options.store_port, options.bind_addr,
                            options.timeout_s, what.substr(0, what.find('\n'))));
  }
  auto interpreter = std::make_unique<Interpreter>(job, options, *cluster);
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
  write_summary(*interpreter, options, options.out_dir + "/worker.json");
}

}  // namespace geotrain
