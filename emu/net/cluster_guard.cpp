#include "emu/net/cluster_guard.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "emu/net/cluster_builder.hpp"
#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

// In the forked child: only async-signal-safe calls until execv.
[[noreturn]] void exec_guardian(char* const argv[], int owner_fd, int ready_fd) {
  setsid();
  // The pipe ends become fds 3 and 4 (dup2 clears close-on-exec); copies above 10 first, so
  // neither dup2 overwrites the other end. Nothing else of the owner's stays open in the guardian.
  const int owner_copy = fcntl(owner_fd, F_DUPFD, 10), ready_copy = fcntl(ready_fd, F_DUPFD, 10);
  dup2(owner_copy, 3);
  dup2(ready_copy, 4);
  close_range(5, ~0U, 0);
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) dup2(null, 0), dup2(null, 1);  // stderr stays: the guardian's one line goes there
  if (null > 4) close(null);
  execv("/proc/self/exe", argv);
  _exit(127);
}

}  // namespace

ClusterGuard::ClusterGuard(const std::string& cluster, const StateStore& store, const ProcessIdentity& owner,
                           double timeout_s) {
  int owner_pipe[2], ready_pipe[2];
  if (pipe2(owner_pipe, O_CLOEXEC) != 0) throw SystemError("pipe", errno, std::strerror(errno));
  if (pipe2(ready_pipe, O_CLOEXEC) != 0) {
    close(owner_pipe[0]), close(owner_pipe[1]);
    throw SystemError("pipe", errno, std::strerror(errno));
  }
  std::vector<std::string> args = {"geotrain", "emu", "guard", cluster, "--owner", format_identity(owner),
                                   "--owner-fd", "3", "--ready-fd", "4", "--state-dir", store.dir()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = fork();
  if (pid_ == 0) exec_guardian(argv.data(), owner_pipe[0], ready_pipe[1]);
  const int fork_errno = errno;
  close(owner_pipe[0]);
  close(ready_pipe[1]);
  write_fd_ = owner_pipe[1];
  if (pid_ < 0) {
    close(ready_pipe[0]), close(write_fd_);
    throw SystemError("fork", fork_errno, std::strerror(fork_errno));
  }
  char buf[8] = {};
  pollfd pfd{ready_pipe[0], POLLIN, 0};
  const int polled = poll(&pfd, 1, static_cast<int>(timeout_s * 1000));
  const ssize_t n = polled > 0 ? read(ready_pipe[0], buf, sizeof buf - 1) : 0;
  close(ready_pipe[0]);
  if (n > 0 && std::strncmp(buf, "ready", 5) == 0) return;
  close(write_fd_);  // the guardian, if it runs at all, finds no record naming us and exits
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  throw SystemError("geotrain emu guard " + cluster, polled > 0 ? 127 : -1,
                    polled > 0 ? "the guardian did not start (cannot run /proc/self/exe)"
                               : fmt::format("no ready signal within {} s", timeout_s));
}

ClusterGuard::~ClusterGuard() {
  close(write_fd_);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
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
