#pragma once
// The workers of `geotrain real run`, one ssh client each (any command in tests), supervised
// from the controller: their output streamed line by line as `[host/rank] line` (and kept in a
// log file per rank), their stdin held open as a pipe while they run (the remote wrapper kills
// its worker's group when that pipe closes: remote_commands.hpp), their exit statuses watched.
//
// A rank that exits non-zero, or whose ssh fails (255), fails the run: the other ranks' stdin is
// closed (their remote groups die), their ssh clients get stop_grace_s to end, then SIGTERM and
// SIGKILL. A SIGINT/SIGTERM of the controller (options.interrupted) does the same. Every ssh
// client is started with PR_SET_PDEATHSIG, so a kill -9 of the controller ends them too (and
// with them their connections and the remote stdin).
#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace geotrain::real {

struct RemoteWorker {
  int rank = 0;
  std::string host;               // the hosts file's name, for messages
  std::vector<std::string> argv;  // ssh ... (argv[0] looked up in PATH)
  std::string stdout_path, stderr_path;  // local copies of the streamed output ("" = none)
};

struct RemoteSuperviseOptions {
  std::function<bool()> interrupted;                // SIGINT/SIGTERM seen: stop everything
  std::function<void(const std::string&)> on_line;  // "[host/rank] line", streamed
  double poll_s = 0.05;
  // After the first failure, how long to wait for other exits before naming the cause: a rank
  // killed by a signal is preferred over peers that merely lost it.
  double failure_window_s = 1.0;
  // After stdin is closed, how long the ssh clients get to end on their own (the wrapper's
  // SIGTERM, kKillGrace_s, SIGKILL, and the connection's close) before they are killed.
  double stop_grace_s = 10.0;
};

struct RemoteSuperviseResult {
  bool ok = false;
  std::string failure;           // "rank 2 on host ns-london failed: killed by signal 9 (Killed) (stderr: ...)"
  int failed_rank = -1;
  std::vector<int> exit_status;  // per worker: exit code (128 + signal), -1 never reaped
  double wall_s = 0;
};

// The words for a wrapper's / ssh's exit status `code` of `rank` on `host`, with the last stderr line.
std::string describe_remote_failure(int rank, const std::string& host, int code, const std::string& last_stderr);

class RemoteWorkers {
 public:
  explicit RemoteWorkers(std::vector<RemoteWorker> workers);
  ~RemoteWorkers();  // stops whatever still runs
  RemoteWorkers(const RemoteWorkers&) = delete;
  RemoteWorkers& operator=(const RemoteWorkers&) = delete;

  void start(const std::function<void(const std::string&)>& on_line);
  RemoteSuperviseResult supervise(const RemoteSuperviseOptions& options);
  // Closes every stdin, waits up to grace_s for the clients to end, then SIGTERM, SIGKILL; reaps.
  void stop(double grace_s);
  std::vector<pid_t> pids() const;

 private:
  struct Running;
  std::vector<RemoteWorker> workers_;
  std::vector<std::unique_ptr<Running>> running_;
};

}  // namespace geotrain::real
