// geotrain-worker: one rank of an emulated (or real) cluster. Thin main: flags -> run_worker().
// Exit codes: 0 done, 1 failure of the run (timeout, dead peer), 2 bad input.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "emu/worker/worker.hpp"
#include "sim/common/error.hpp"
#include "sim/common/log.hpp"

int main(int argc, char** argv) {
  using namespace geotrain;
  CLI::App app{"geotrain-worker: executes one rank's Program with LibTorch and Gloo"};
  std::string job_path, collectives = "p2p", log_spec = "warning", backend = "gloo";
  int cuda_device = -1;
  WorkerOptions o;
  app.add_option("--program", job_path, "worker job JSON (Program + model + training)")->required();
  app.add_option("--rank", o.rank, "this worker's rank in the Program")->required();
  app.add_option("--store-addr", o.store_addr, "address of rank 0's TCPStore");
  app.add_option("--store-port", o.store_port, "port of rank 0's TCPStore");
  app.add_option("--bind-addr", o.bind_addr, "address Gloo binds to (the rank's namespace address)");
  app.add_option("--steps", o.steps, "training iterations")->check(CLI::NonNegativeNumber);
  app.add_option("--out", o.out_dir, "directory for ops.csv, iterations.csv, worker.json");
  app.add_option("--threads", o.threads, "torch intra-op threads")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "seed of the model initialisation and the data");
  app.add_option("--collectives", collectives, "p2p: the Program's algorithm from send/recv; "
                 "gloo: Gloo's own collectives")->check(CLI::IsMember({"p2p", "gloo"}));
  app.add_option("--timeout", o.timeout_s, "seconds to wait for a peer before failing")
      ->check(CLI::PositiveNumber);
  app.add_option("--progress", o.progress_path, "status file the launcher maps (op being run, finished steps)");
  app.add_option("--log", log_spec, "log levels, e.g. 'info' or 'emu.worker:info' (stderr)");
  app.add_option("--backend", backend, "gloo (CPU tensors); nccl is accepted by name only (not implemented, "
                 "docs/real.md)")->check(CLI::IsMember({"gloo", "nccl"}));
  app.add_option("--cuda-device", cuda_device, "CUDA device of this rank (with --backend nccl)")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  if (backend == "nccl") {
    // What `geotrain real run --backend nccl` launches. The worker's process groups are Gloo's
    // and its tensors live on the CPU: an NCCL path (ProcessGroupNCCL, tensors on
    // --cuda-device) is not written yet, so the worker refuses instead of running Gloo.
    std::cerr << "geotrain-worker: error: --backend nccl: not implemented in this worker (Gloo on CPU only; "
                 "see docs/real.md, NCCL)\n";
    return 2;
  }
  o.library_collectives = collectives == "gloo";
  try {
    log::configure(log_spec);
    run_worker(read_worker_job(job_path), o);
  } catch (const InputError& e) {
    for (const auto& p : e.problems()) std::cerr << "geotrain-worker: error: " << p << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "geotrain-worker: rank " << o.rank << ": error: " << e.what() << '\n';
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(1);  // skip destructors of threads still blocked on a dead peer
  }
  return 0;
}
