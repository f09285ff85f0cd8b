#pragma once
// The N geotrain-worker processes of one run: started inside their rank namespaces (setns in
// the forked child, then exec; sim/process), supervised until all exit, and stopped on failure.
// Each worker dies with the launcher (PR_SET_PDEATHSIG), so even kill -9 of geotrain leaves no
// worker.
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "emu/launch/progress_block.hpp"
#include "sim/process/child_process.hpp"

namespace geotrain::emu {

struct WorkerSpec {
  std::vector<std::string> argv;  // argv[0] = absolute path of geotrain-worker
  std::string netns;              // "" = the launcher's own namespace
  std::string stdout_path, stderr_path;
  std::string progress_path;      // created (zeroed) before the start
  std::vector<std::string> env = {};  // "NAME=value" added to (or replacing in) the launcher's environment
};

struct SuperviseOptions {
  double stall_timeout_s = 60;  // no rank starts an op for this long: the run hangs
  // Until every rank has started its first op (loading LibTorch, joining the store, which
  // takes long on a busy host), this limit applies instead.
  double startup_timeout_s = 120;
  double poll_s = 0.05;
  std::function<void(const std::vector<ProgressBlock>&)> on_poll;  // progress lines
  std::function<bool()> interrupted;  // SIGINT/SIGTERM seen: stop the workers
  // The op label of (rank, op index), for failure messages.
  std::function<std::string(int rank, int op)> op_label;
};

struct SuperviseResult {
  bool ok = false;
  std::string failure;          // "rank 2 failed in step 3 op 7 (bwd s1 mb0): ..."
  int failed_rank = -1;
  std::vector<int> exit_status;  // per rank: exit code, 128 + signal, or -1 if never reaped
  double wall_s = 0;
};

class WorkerSet {
 public:
  explicit WorkerSet(std::vector<WorkerSpec> specs);
  ~WorkerSet();  // stops whatever still runs
  WorkerSet(const WorkerSet&) = delete;
  WorkerSet& operator=(const WorkerSet&) = delete;

  void start();
  SuperviseResult supervise(const SuperviseOptions& options);
  // SIGTERM to every live worker, SIGKILL after grace_s, then reaps them.
  void stop(double grace_s);
  const std::vector<pid_t>& pids() const { return pids_; }

 private:
  std::string describe_failure(int rank, int status, const SuperviseOptions& o) const;
  bool reap(int rank, bool block);

  std::vector<WorkerSpec> specs_;
  std::vector<std::unique_ptr<ProgressMap>> progress_;
  std::vector<process::ChildProcess> children_;
  std::vector<pid_t> pids_;
  std::vector<int> status_;  // -1 while running
};

// The last non-empty line of a text file ("" if none).
std::string last_line_of(const std::string& path);

}  // namespace geotrain::emu
