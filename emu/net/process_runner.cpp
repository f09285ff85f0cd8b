#include "emu/net/process_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

std::string joined(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

void close_fd(int& fd) {
  if (fd >= 0) close(fd);
  fd = -1;
}

// Feeds stdin and drains stdout/stderr together, so a chatty child never blocks on a full pipe.
void pump(int in_fd, int out_fd, int err_fd, const std::string& input, ProcessResult& r) {
  std::size_t written = 0;
  if (input.empty()) close_fd(in_fd);
  char buf[65536];
  while (in_fd >= 0 || out_fd >= 0 || err_fd >= 0) {
    pollfd fds[3] = {{in_fd, POLLOUT, 0}, {out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (in_fd >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t n = write(in_fd, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<std::size_t>(n);
      if (n < 0 || written == input.size()) close_fd(in_fd);
    }
    for (int k = 1; k < 3; ++k) {
      int& fd = k == 1 ? out_fd : err_fd;
      if (fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) (k == 1 ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      else if (n == 0 || errno != EINTR) close_fd(fd);
    }
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw SystemError("pipe", errno, std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw SystemError("fork for " + joined(argv), errno, std::strerror(errno));
  if (pid == 0) {
    // Dies with geotrain: an `ip -batch` still creating namespaces after a kill -9 of geotrain
    // would race the guardian's teardown (cluster_guard.hpp) and leave some behind.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    signal(SIGPIPE, SIG_DFL);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    dprintf(2, "cannot run %s: %s\n", args[0], std::strerror(errno));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  ProcessResult r;
  // A child that exits early must not kill us with SIGPIPE while we feed it.
  struct sigaction ignore{}, old{};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old);
  pump(in[1], out[0], err[0], stdin_text, r);
  sigaction(SIGPIPE, &old, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

ProcessResult run_checked(const std::vector<std::string>& argv, const std::string& stdin_text,
                          const std::string& shown) {
  ProcessResult r = run_process(argv, stdin_text);
  if (r.status != 0) {
    std::string err = r.err;
    while (!err.empty() && (err.back() == '\n' || err.back() == ' ')) err.pop_back();
    throw SystemError(shown.empty() ? joined(argv) : shown, r.status, err);
  }
  return r;
}

}  // namespace geotrain::emu
