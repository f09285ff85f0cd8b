#pragma once
// `geotrain real run`: one training run of a scenario on the machines of a hosts file, over ssh.
//   1. the scenario, the hosts file, the Program and the plan (make_real_plan; worker timeouts
//      from real/store_timeout); the run directory results/<scenario>/real/<NNN>/ claimed as the
//      other executors claim theirs; scenario.yaml, job.json and manifest.json written;
//   2. per host, over ssh: refuse if workers of an earlier run still live there, clear
//      <workdir>/.geotrain and the host's ranks/R/, write job.json (remote_commands.hpp);
//   3. per rank, one ssh running the worker under the remote wrapper (its own session, recorded
//      in <workdir>/.geotrain/workers.json, killed when the ssh's stdin closes); output streamed as
//      `[host/rank] line`; supervised (remote_workers.hpp);
//   4. on success, each rank's ops.csv, iterations.csv (and dynamic.csv) fetched into
//      <run>/ranks/R/, and the run's result files written exactly as `geotrain emulate` writes
//      them (emu/launch/run_results.hpp, executor "real"), so `geotrain compare --measured` reads it.
#include <functional>
#include <string>
#include <vector>

#include "real/real_plan.hpp"

namespace geotrain::real {

struct RealRunOptions {
  std::string scenario_path, hosts_path;
  std::vector<std::string> sets;  // key.path=value overrides
  int steps = 0;                  // 0 = training.steps of the scenario
  int warmup = 1;                 // iterations left out of the medians and the compute profile
  std::string out;                // "" = <results_root>/<scenario>/real/<NNN>
  std::string results_root = "results";
  int master_port = 29500;
  std::string collectives;        // "" = emulation.collectives of the scenario (p2p | gloo | nccl)
  std::string backend;            // gloo | nccl; "" = nccl for collectives nccl, else gloo (worker_backend.hpp)
  double ssh_command_timeout_s = 120;  // staging and fetching, per ssh command
  std::function<void(const std::string&)> on_line;  // progress and streamed worker output
};

struct RealRunResult {
  std::string dir;
  double iteration_time_s = 0;  // median without warm-up
  double tokens_per_s = 0;
  double wall_s = 0;
};

// Throws InputError before anything starts (bad scenario, hosts file, flags, nccl without
// CUDA), Error when the run fails (naming host and rank); every started ssh client is ended and
// every remote worker group killed (its stdin closed) before it returns or throws.
RealRunResult run_real(const RealRunOptions& options);

// The host as real run reaches it: the hosts file's ssh_options followed by ssh keep-alives
// (ServerAliveInterval=5, ServerAliveCountMax=3: a host that stops answering ends its ssh within
// ~15 s, which fails the run). ssh takes the first value of an option, so the file's win.
HostSpec with_keepalive(const HostSpec& host);

}  // namespace geotrain::real
