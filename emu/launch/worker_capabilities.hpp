#pragma once
// What a geotrain-worker executable can do, as it says itself: `geotrain-worker --capabilities`
// prints one JSON line (format geotrain-worker-capabilities, version 1: the LibTorch version,
// whether it has CUDA, NCCL and Gloo, the GPUs it sees). `geotrain emulate` asks before it makes
// anything when the run wants a GPU (device cuda) or NCCL, so a worker that cannot is refused
// with one line naming the key, what the worker has and the fix, instead of N ranks failing
// after the cluster is up. Torch-free: the answer comes from the worker process.
#include <cstdint>
#include <string>
#include <vector>

namespace geotrain::emu {

struct WorkerGpu {
  int index = 0;
  std::string name;
  std::uint64_t total_bytes = 0;
};

struct WorkerCapabilities {
  std::string torch;  // LibTorch version, e.g. "1.13.0"
  bool cuda = false;  // built against a CUDA LibTorch
  bool nccl = false;  // has the NCCL process group
  bool gloo = false;  // has the Gloo process group
  int cuda_devices = 0;  // GPUs visible to it now
  std::vector<WorkerGpu> gpus;
};

// The worker's answer (its stdout; the first line that parses as a JSON object is taken).
// Throws InputError naming `worker` when there is none or it is not format
// geotrain-worker-capabilities version 1 with the fields above.
WorkerCapabilities parse_worker_capabilities(const std::string& text, const std::string& worker);

// Runs `<worker> --capabilities` (at most timeout_s) and parses its answer; a worker that fails,
// hangs or answers something else is an InputError naming it.
WorkerCapabilities probe_worker_capabilities(const std::string& worker, double timeout_s = 60);

// What one run asks of the worker, and where each ask came from (for the messages: the
// scenario key, or the command-line flag that overrode it).
struct WorkerNeeds {
  std::string device = "cpu";       // cpu | cuda
  std::string collectives = "p2p";  // p2p | gloo | nccl
  std::string device_key = "emulation.device";
  std::string collectives_key = "emulation.collectives";
};

// True when the run must ask the worker first: device cuda or collectives nccl.
bool needs_capability_probe(const WorkerNeeds& needs);

// Throws InputError (one line: key, what the worker has, the fix) when `c` cannot run `needs`:
// cuda without a CUDA LibTorch or without a visible GPU, nccl without NCCL, p2p / gloo (the Gloo
// backend) on a worker built without Gloo.
void require_worker_capabilities(const WorkerCapabilities& c, const std::string& worker, const WorkerNeeds& needs);

}  // namespace geotrain::emu
