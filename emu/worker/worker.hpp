#pragma once
// The LibTorch worker: joins the cluster, then executes its rank's Program op by op for a number
// of training steps with real tensors, and writes its measurements. No LibTorch in this header,
// so the thin main() compiles without it.
#include <cstdint>
#include <string>

#include "emu/worker/worker_job.hpp"

namespace geotrain {

struct WorkerOptions {
  int rank = 0;
  std::string store_addr = "127.0.0.1";
  int store_port = 29500;
  std::string bind_addr = "127.0.0.1";
  int steps = 10;
  std::string out_dir = ".";
  int threads = 1;  // torch intra-op threads
  std::uint64_t seed = 1;
  bool library_collectives = false;  // --collectives gloo
  double timeout_s = 60;
  std::string progress_path;  // --progress: live status for the launcher (emu/worker/progress_block.hpp)
  std::string device = "cpu";   // cpu | cuda (compute_device.hpp)
  int cuda_device = -1;         // -1: rank % visible GPUs
  std::string backend = "gloo";  // gloo | nccl: the transport of every process group
  int ranks_per_gpu = 1;        // ranks sharing this rank's GPU: each gets that share of its memory
};

// Throws InputError for Programs / jobs the worker cannot run, TimeoutError when a peer does
// not answer within timeout_s, Error for failing communication. Writes into out_dir:
// ops.csv, iterations.csv and worker.json (see README.md).
void run_worker(const WorkerJob& job, const WorkerOptions& options);

// `--profile REQUEST`: no cluster, no network. Builds each requested op's stage on the device
// (one at a time), times every requested Compute op (profile_ops.hpp) with synthetic batches or
// random activations of the right shape, and writes profile_times.json into out_dir. Prints one
// progress line per stage on stdout. Throws InputError for a bad request or a CUDA stage that
// does not fit in the GPU's free memory (both figures).
void run_op_profile(const WorkerJob& job, const std::string& request_path, const WorkerOptions& options);

// `--capabilities`: one JSON line (LibTorch version, CUDA, NCCL, Gloo, the visible GPUs).
std::string worker_capabilities_json();

}  // namespace geotrain
