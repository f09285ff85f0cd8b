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
  CLI::App app{"geotrain-worker: executes one rank's Program with LibTorch (Gloo on CPU, NCCL on GPU)"};
  std::string job_path, collectives = "p2p", log_spec = "warning", profile_path;
  bool capabilities = false;
  WorkerOptions o;
  app.add_flag("--capabilities", capabilities, "print what this worker can run (one JSON line) and exit");
  app.add_option("--profile", profile_path, "time the Compute ops this request names (geotrain profile), "
                 "in this process, no cluster; writes profile_times.json to --out");
  auto* program = app.add_option("--program", job_path, "worker job JSON (Program + model + training)");
  auto* rank = app.add_option("--rank", o.rank, "this worker's rank in the Program");
  app.add_option("--store-addr", o.store_addr, "address of rank 0's TCPStore");
  app.add_option("--store-port", o.store_port, "port of rank 0's TCPStore");
  app.add_option("--bind-addr", o.bind_addr, "address Gloo binds to (the rank's namespace address)");
  app.add_option("--steps", o.steps, "training iterations")->check(CLI::NonNegativeNumber);
  app.add_option("--out", o.out_dir, "directory for ops.csv, iterations.csv, worker.json");
  app.add_option("--threads", o.threads, "torch intra-op threads")->check(CLI::PositiveNumber);
  app.add_option("--seed", o.seed, "seed of the model initialisation and the data");
  app.add_option("--collectives", collectives, "p2p: the Program's algorithm from send/recv; "
                 "gloo: the backend's own collectives (Gloo's, or NCCL's with --backend nccl)")
      ->check(CLI::IsMember({"p2p", "gloo"}));
  app.add_option("--timeout", o.timeout_s, "seconds to wait for a peer before failing")
      ->check(CLI::PositiveNumber);
  app.add_option("--progress", o.progress_path, "status file the launcher maps (op being run, finished steps)");
  app.add_option("--log", log_spec, "log levels, e.g. 'info' or 'emu.worker:info' (stderr)");
  app.add_option("--device", o.device, "cpu, or cuda: the stage, its optimizer state and activations on a GPU")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  app.add_option("--backend", o.backend, "transport of every process group: gloo (host memory) or nccl (GPU)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  app.add_option("--cuda-device", o.cuda_device, "GPU index of this rank (default: rank % visible GPUs)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--ranks-per-gpu", o.ranks_per_gpu, "ranks sharing one GPU (each may use that share of "
                 "its free memory)")->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);
  if (capabilities) {
    std::cout << worker_capabilities_json() << std::endl;
    return 0;
  }
  if (program->count() == 0 || (rank->count() == 0 && profile_path.empty())) {
    std::cerr << "geotrain-worker: error: --program and --rank are required (or --program and --profile, "
                 "or --capabilities)\n";
    return 2;
  }
  o.library_collectives = collectives == "gloo";
  try {
    log::configure(log_spec);
    if (!profile_path.empty()) run_op_profile(read_worker_job(job_path), profile_path, o);
    else run_worker(read_worker_job(job_path), o);
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
