#include "sim/process/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

#include "sim/common/error.hpp"
#include "sim/process/child_exec.hpp"
#include "sim/process/close_fd.hpp"
#include "sim/process/exit_status.hpp"

namespace geotrain::process {

namespace {

using Clock = std::chrono::steady_clock;

// Polling, not SIGCHLD: a library must not own a process-wide signal handler, and the waits
// here are seconds long, so 5 ms granularity costs nothing.
constexpr auto kPollInterval = std::chrono::milliseconds(5);

}  // namespace

ChildProcess ChildProcess::start(const ChildSpec& spec) {
  // pipes[s][0] is the read end; stdin's child end is the read end, the others the write end.
  int pipes[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  const Stream* streams[3] = {&spec.in, &spec.out, &spec.err};
  auto close_all = [&] {
    for (auto& p : pipes) close_fd(p[0]), close_fd(p[1]);
  };
  for (int s = 0; s < 3; ++s) {
    if (streams[s]->kind != Stream::Kind::pipe) continue;
    if (::pipe2(pipes[s], O_CLOEXEC) != 0) {
      const int e = errno;
      close_all();
      throw SystemError("pipe", e, std::strerror(e));
    }
  }
  const int child_ends[3] = {pipes[0][0], pipes[1][1], pipes[2][1]};
  const ChildExec exec(spec, child_ends);  // every allocation happens here, before fork
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0) exec.run(parent);
  if (pid < 0) {
    const int e = errno;
    close_all();
    throw SystemError("fork for " + command_line(spec.argv), e, std::strerror(e));
  }
  // Also from this side, so a signal to the group right after start cannot miss it.
  if (spec.group == Group::own_group) ::setpgid(pid, pid);
  ChildProcess child;
  child.pid_ = pid;
  child.own_group_ = spec.group != Group::inherit;
  child.fds_[0] = pipes[0][1];
  child.fds_[1] = pipes[1][0];
  child.fds_[2] = pipes[2][0];
  for (int s = 0; s < 3; ++s) close_fd(pipes[s][s == 0 ? 0 : 1]);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept {
  *this = std::move(other);
}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this == &other) return *this;
  reset();
  pid_ = std::exchange(other.pid_, -1);
  own_group_ = other.own_group_;
  code_ = std::exchange(other.code_, std::nullopt);
  for (int s = 0; s < 3; ++s) fds_[s] = std::exchange(other.fds_[s], -1);
  return *this;
}

ChildProcess::~ChildProcess() {
  reset();
}

void ChildProcess::reset() {
  close_fds();
  if (running()) {
    signal_group(SIGKILL);
    wait();
  }
  pid_ = -1;
  code_.reset();
}

int ChildProcess::take_fd(int stream) {
  return std::exchange(fds_[stream], -1);
}

void ChildProcess::close_fds() {
  for (int& fd : fds_) close_fd(fd);
}

std::optional<int> ChildProcess::try_wait() {
  if (!running()) return code_;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) code_ = exit_code_of(status);
  return code_;
}

int ChildProcess::wait() {
  if (!running()) return code_.value_or(-1);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  code_ = exit_code_of(status);
  return *code_;
}

std::optional<int> ChildProcess::wait_for(double timeout_s) {
  const auto until = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (!try_wait() && running() && Clock::now() < until)
    std::this_thread::sleep_for(kPollInterval);
  return try_wait();
}

void ChildProcess::signal(int sig) const {
  if (running()) ::kill(pid_, sig);
}

void ChildProcess::signal_group(int sig) const {
  if (running()) ::kill(own_group_ ? -pid_ : pid_, sig);
}

int ChildProcess::stop(double grace_s) {
  stop_all({this}, grace_s);
  return code_.value_or(-1);
}

void ChildProcess::stop_all(std::vector<ChildProcess*> children, double grace_s) {
  std::erase_if(children, [](ChildProcess* c) { return !c->running() || c->try_wait(); });
  for (ChildProcess* c : children) {
    c->signal(SIGTERM);
    c->signal(SIGCONT);  // a stopped child must run to act on SIGTERM
  }
  const auto until = Clock::now() + std::chrono::duration<double>(grace_s);
  while (!children.empty() && Clock::now() < until) {
    std::erase_if(children, [](ChildProcess* c) { return c->try_wait().has_value(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  for (ChildProcess* c : children) c->signal(SIGKILL);
  for (ChildProcess* c : children) c->wait();
}

pid_t ChildProcess::release() {
  close_fds();
  code_.reset();
  return std::exchange(pid_, -1);
}

}  // namespace geotrain::process
