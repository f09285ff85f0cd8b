#pragma once
// One started child process: its pid, the parent's ends of its pipes, waiting (with or without
// a limit), signals to it or its group, and a stop that escalates from SIGTERM to SIGKILL.
// Owning: a child still running when its ChildProcess is destroyed is killed and reaped, so an
// exception between start and wait leaves no process behind; release() hands a daemon over.
#include <sys/types.h>

#include <optional>
#include <vector>

#include "sim/process/child_spec.hpp"

namespace geotrain::process {

class ChildProcess {
 public:
  // Forks and execs as `spec` says. Throws SystemError when no pipe or fork is possible; a
  // program that cannot run is seen later, as exit status 127 (or 124..126, child_spec.hpp).
  static ChildProcess start(const ChildSpec& spec);

  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  pid_t pid() const { return pid_; }
  // The parent's end of stream 0/1/2 when the spec asked for a pipe, else -1. take_fd hands
  // it over (the caller closes it); close_fds closes what is left.
  int fd(int stream) const { return fds_[stream]; }
  int take_fd(int stream);
  void close_fds();

  // The exit code (exit status, or 128 + signal) once reaped; waits never reap twice.
  std::optional<int> try_wait();
  int wait();
  std::optional<int> wait_for(double timeout_s);
  std::optional<int> exit_code() const { return code_; }
  bool running() const { return pid_ > 0 && !code_; }

  // To the process itself; signal_group to its whole group when it has its own (else to it).
  void signal(int sig) const;
  void signal_group(int sig) const;
  // SIGTERM (and SIGCONT, so a stopped child can act on it), up to grace_s to exit, then
  // SIGKILL, all to the process itself (its own children are its business), then reaps it;
  // returns the exit code.
  int stop(double grace_s);
  // The same for several at once: one grace period for all, not one each.
  static void stop_all(std::vector<ChildProcess*> children, double grace_s);

  // Forgets the child: no kill and no reap at destruction (a daemon that outlives its starter).
  pid_t release();

 private:
  void reset();

  pid_t pid_ = -1;
  bool own_group_ = false;
  std::optional<int> code_;
  int fds_[3] = {-1, -1, -1};
};

}  // namespace geotrain::process
