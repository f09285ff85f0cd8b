#include "emu/net/cluster_guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "emu/net/cluster_builder.hpp"
#include "sim/common/error.hpp"
#include "sim/process/child_process.hpp"

namespace geotrain::emu {

ClusterGuard::ClusterGuard(const std::string& cluster, const StateStore& store, const ProcessIdentity& owner,
                           double timeout_s) {
  int owner_pipe[2], ready_pipe[2];
  if (pipe2(owner_pipe, O_CLOEXEC) != 0) throw SystemError("pipe", errno, std::strerror(errno));
  if (pipe2(ready_pipe, O_CLOEXEC) != 0) {
    close(owner_pipe[0]), close(owner_pipe[1]);
    throw SystemError("pipe", errno, std::strerror(errno));
  }
  process::ChildSpec spec;
  spec.program = "/proc/self/exe";
  spec.argv = {"geotrain", "emu", "guard", cluster, "--owner", format_identity(owner),
               "--owner-fd", "3", "--ready-fd", "4", "--state-dir", store.dir()};
  spec.group = process::Group::own_session;
  // The pipe ends become fds 3 and 4; nothing else of the owner's stays open in the guardian.
  spec.pass_fds = {owner_pipe[0], ready_pipe[1]};
  spec.close_other_fds = true;
  spec.in = process::Stream::null();
  spec.out = process::Stream::null();  // stderr stays: the guardian's one line goes there
  try {
    guardian_ = process::ChildProcess::start(spec);
  } catch (...) {
    for (int fd : {owner_pipe[0], owner_pipe[1], ready_pipe[0], ready_pipe[1]}) close(fd);
    throw;
  }
  close(owner_pipe[0]);
  close(ready_pipe[1]);
  write_fd_ = owner_pipe[1];
  char buf[8] = {};
  pollfd pfd{ready_pipe[0], POLLIN, 0};
  const int polled = poll(&pfd, 1, static_cast<int>(timeout_s * 1000));
  const ssize_t n = polled > 0 ? read(ready_pipe[0], buf, sizeof buf - 1) : 0;
  close(ready_pipe[0]);
  if (n > 0 && std::strncmp(buf, "ready", 5) == 0) return;
  close(write_fd_);  // the guardian, if it runs at all, finds no record naming us and exits
  guardian_.signal(SIGKILL);
  guardian_.wait();
  throw SystemError("geotrain emu guard " + cluster, polled > 0 ? 127 : -1,
                    polled > 0 ? "the guardian did not start (cannot run /proc/self/exe)"
                               : fmt::format("no ready signal within {} s", timeout_s));
}

ClusterGuard::~ClusterGuard() {
  close(write_fd_);
  guardian_.wait();
}

std::string guard_cluster(const std::string& cluster, const ProcessIdentity& owner, int owner_fd,
                          int ready_fd, const StateStore& store) {
  // Its own session already (the owner's fork called setsid); a hang-up or a Ctrl-C meant for
  // the owner must not end the guardian either.
  signal(SIGINT, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGPIPE, SIG_IGN);
  if (ready_fd >= 0) {
    (void)!write(ready_fd, "ready\n", 6);
    close(ready_fd);
  }
  char byte;
  for (;;) {
    const ssize_t n = read(owner_fd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;  // EOF: the owner is gone or let go
  }
  close(owner_fd);
  const auto record = store.load(cluster);
  if (!record || !record->owner || !(*record->owner == owner)) return "";
  TeardownReport r = teardown_cluster(cluster, store);
  // A command the owner had started may have finished its step after the scan above (its
  // children die with it, but a system call in progress completes): one more pass.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const TeardownReport late = teardown_cluster(cluster, store);
  r.namespaces += late.namespaces;
  r.processes += late.processes;
  return fmt::format("geotrain emu guard: the owner of cluster {} (pid {}) ended without removing it: "
                     "removed {} namespaces, stopped {} processes", cluster, owner.pid, r.namespaces,
                     r.processes);
}

}  // namespace geotrain::emu
