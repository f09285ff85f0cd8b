#pragma once
// The child's side of a start: everything between fork and exec. The parent prepares every
// string and pointer before fork (a forked child of a threaded program may only make
// async-signal-safe calls: no allocation), the child then only makes system calls.
#include <sys/types.h>

#include <string>
#include <vector>

#include "sim/process/child_spec.hpp"

namespace geotrain::process {

class ChildExec {
 public:
  static constexpr std::size_t kMaxPassFds = 16;

  // pipe_ends[s]: the child's end of stream s's pipe (Stream::Kind::pipe), else -1.
  ChildExec(const ChildSpec& spec, const int (&pipe_ends)[3]);

  // In the forked child: sets it up as the spec says and execs; never returns.
  [[noreturn]] void run(pid_t parent) const;

 private:
  bool redirect(int target, const Stream& s, int pipe_end, bool stdout_redirected) const;
  void pass_fds() const;
  [[noreturn]] void fail(int code, const char* what, const char* name, int error) const;

  const ChildSpec& spec_;
  int pipe_ends_[3];
  std::string path_;  // what is executed
  std::vector<char*> argv_;
  std::vector<std::string> env_strings_;
  std::vector<char*> envp_;  // empty: the child keeps our environment
  std::string netns_path_;
};

}  // namespace geotrain::process
