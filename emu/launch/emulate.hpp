#pragma once
// `geotrain emulate`: one training run of a scenario on the emulated network. Brings the
// cluster up (or joins one `geotrain emu up` left running), checks a sample of links, runs one
// geotrain-worker per Program rank inside the namespace of the rank's device, supervises them,
// tears down what it built, and writes results/<scenario>/emu/<run-id>/ (see README.md).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace geotrain::emu {

struct EmulateOptions {
  std::string scenario_path;
  std::vector<std::string> sets;  // key.path=value overrides
  int steps = 0;                  // 0 = training.steps of the scenario
  int warmup = 1;                 // iterations left out of the medians and the compute profile
  std::string out;                // "" = <results_root>/<scenario>/emu/<NNN>
  std::string results_root = "results";
  std::string cluster;            // "" = build a cluster for this run, else use this running one
  std::string collectives;        // "" = emulation.collectives of the scenario (p2p | gloo | nccl)
  std::string device;             // "" = emulation.device of the scenario (cpu | cuda)
  // No cluster: every worker in the launcher's own network namespace on 127.0.0.1, links not
  // shaped, no link test, no root needed (for machines that allow no namespaces or tc; the
  // results say "network": "unshaped (loopback)" and `geotrain compare` warns about them).
  bool unshaped = false;
  double timeout_s = 60;          // a run with no op started for this long has hung
  std::optional<DelayBackend> backend;  // none = emulation.delay_backend
  bool skip_linktest = false;     // debugging only
  // Links off the scenario are reported (log, manifest) but do not stop the run. For tests and
  // busy hosts: a CPU-starved host delivers less than a link's rate; the run is still valid
  // evidence that the strategy works, just not of its speed.
  bool linktest_advisory = false;
  std::string linktest_pairs = "sample:4";
  std::string worker;             // "" = $GEOTRAIN_WORKER or geotrain-worker next to geotrain
  std::function<void(const std::string&)> on_line;  // progress lines, for people
};

struct EmulateResult {
  std::string dir;
  double iteration_time_s = 0;  // median without warm-up
  double tokens_per_s = 0;
  double wall_s = 0;
  bool bytes_match = false;
  bool bytes_counted = false;  // false: Gloo's own collectives ran (the worker cannot count them)
  bool bytes_fixed = false;    // false: run-time decisions (gossip, partial reduce) set the bytes
};

// Throws InputError before creating anything (no root, bad scenario, no worker executable, a
// worker that cannot run the device or collectives asked for: worker_capabilities.hpp),
// Error when the run fails (the message names the rank and the op); in both cases nothing of the
// cluster it built and no worker process is left.
EmulateResult run_emulation(const EmulateOptions& options);

// geotrain-worker: $GEOTRAIN_WORKER, else next to /proc/self/exe. Throws InputError if absent.
std::string find_worker_executable(const std::string& explicit_path);

}  // namespace geotrain::emu
