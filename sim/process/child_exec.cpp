#include "sim/process/child_exec.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "sim/common/error.hpp"

extern char** environ;

namespace geotrain::process {

namespace {

// dup2 clears close-on-exec on the copy, except when source and target are the same fd: then
// the flag must be cleared by hand or the stream would close at exec.
void dup_onto(int fd, int target) {
  if (fd == target)
    ::fcntl(fd, F_SETFD, 0);
  else
    ::dup2(fd, target);
}

std::string env_name(const std::string& assignment) {
  return assignment.substr(0, assignment.find('='));
}

}  // namespace

ChildExec::ChildExec(const ChildSpec& spec, const int (&pipe_ends)[3])
    : spec_(spec), pipe_ends_{pipe_ends[0], pipe_ends[1], pipe_ends[2]} {
  if (spec.argv.empty()) throw Error("process: nothing to run (empty argv)");
  if (spec.pass_fds.size() > kMaxPassFds)
    throw Error("process: at most " + std::to_string(kMaxPassFds) + " extra fds can be passed");
  path_ = spec.program.empty() ? spec.argv[0] : spec.program;
  for (const auto& a : spec.argv) argv_.push_back(const_cast<char*>(a.c_str()));
  argv_.push_back(nullptr);
  if (!spec.netns.empty()) netns_path_ = "/run/netns/" + spec.netns;
  if (spec.env.empty()) return;
  // Our environment minus the names the spec sets, then the spec's assignments.
  for (char** e = environ; e && *e; ++e) {
    const std::string entry = *e;
    bool replaced = false;
    for (const auto& add : spec.env) replaced = replaced || env_name(add) == env_name(entry);
    if (!replaced) env_strings_.push_back(entry);
  }
  env_strings_.insert(env_strings_.end(), spec.env.begin(), spec.env.end());
  for (auto& s : env_strings_) envp_.push_back(s.data());
  envp_.push_back(nullptr);
}

void ChildExec::fail(int code, const char* what, const char* name, int error) const {
  if (spec_.report_setup_errors) ::dprintf(2, "%s %s: %s\n", what, name, std::strerror(error));
  ::_exit(code);
}

bool ChildExec::redirect(int target, const Stream& s, int pipe_end, bool stdout_redirected) const {
  int fd = -1;
  switch (s.kind) {
    case Stream::Kind::inherit:
      return false;
    case Stream::Kind::pipe:
      dup_onto(pipe_end, target);
      return true;
    case Stream::Kind::like_stdout:
      if (stdout_redirected) ::dup2(1, target);
      return stdout_redirected;
    case Stream::Kind::null:
      fd = ::open("/dev/null", (target == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
      break;
    case Stream::Kind::file:
      fd = ::open(s.path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (s.append ? O_APPEND : O_TRUNC),
                  0644);
      break;
  }
  if (fd < 0) {
    if (s.required) ::_exit(kExitCannotOpenOutput);
    return false;
  }
  dup_onto(fd, target);
  return true;
}

void ChildExec::pass_fds() const {
  // Copies above every target first, so no dup2 overwrites an fd still to be passed.
  // (The constructor allows at most kMaxPassFds, so the array needs no allocation here.)
  const int base = 10 + static_cast<int>(spec_.pass_fds.size());
  int copies[kMaxPassFds];
  const std::size_t n = spec_.pass_fds.size();
  for (std::size_t k = 0; k < n; ++k) copies[k] = ::fcntl(spec_.pass_fds[k], F_DUPFD_CLOEXEC, base);
  for (std::size_t k = 0; k < n; ++k) ::dup2(copies[k], 3 + static_cast<int>(k));
  if (spec_.close_other_fds) ::close_range(3 + static_cast<unsigned>(n), ~0U, 0);
}

void ChildExec::run(pid_t parent) const {
  if (spec_.group == Group::own_session) ::setsid();
  if (spec_.group == Group::own_group) ::setpgid(0, 0);
  if (spec_.die_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(kExitParentGone);  // it died before prctl took effect
  }
  if (!netns_path_.empty()) {
    const int ns = ::open(netns_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0 || ::setns(ns, CLONE_NEWNET) != 0)
      fail(kExitCannotEnterNetns, "cannot enter namespace", spec_.netns.c_str(), errno);
    ::close(ns);
  }
  const bool out = redirect(1, spec_.out, pipe_ends_[1], false);
  redirect(2, spec_.err, pipe_ends_[2], out);
  redirect(0, spec_.in, pipe_ends_[0], false);
  pass_fds();
  // An ignored SIGPIPE is inherited through exec (run() ignores it while it feeds stdin).
  ::signal(SIGPIPE, SIG_DFL);
  const char* path = path_.c_str();
  if (envp_.empty())
    spec_.search_path ? ::execvp(path, argv_.data()) : ::execv(path, argv_.data());
  else
    spec_.search_path ? ::execvpe(path, argv_.data(), envp_.data())
                      : ::execve(path, argv_.data(), envp_.data());
  fail(kExitCannotExec, "cannot run", path, errno);
}

}  // namespace geotrain::process
