#pragma once
// Clean-up without a living controller. An owned cluster (`geotrain emulate`, a temporary link
// test, and every cluster while it is being built) has a guardian: a process of its own,
// `geotrain emu guard <cluster>`, in its own session (a Ctrl-C for the owner does not reach it),
// holding the read end of a pipe whose write end only the owner holds (close-on-exec, so no
// child inherits it). However the owner ends - exit, exception, crash, kill -9 - the kernel
// closes the write end and the guardian reads EOF. If the cluster's record still names the
// owner, the guardian removes the cluster by prefix (teardown_cluster); if the owner removed
// it first (normal end) or handed it over (`emu up`: the record then names no owner), the
// guardian just exits.
//
//   owner:    ClusterGuard guard(cluster, store, this_process());  // before anything exists
//             ... record.owner = this_process(); save; build ...; remove; guard goes out of scope
//   guardian: wait for EOF; record names the owner? teardown : nothing
#include <sys/types.h>

#include <string>

#include "emu/net/process_identity.hpp"
#include "emu/net/state_store.hpp"
#include "sim/process/child_process.hpp"

namespace geotrain::emu {

class ClusterGuard {
 public:
  // Starts the guardian (this executable, `emu guard ...`) and returns once it runs. Throws
  // SystemError when it cannot start within timeout_s.
  ClusterGuard(const std::string& cluster, const StateStore& store, const ProcessIdentity& owner,
               double timeout_s = 10);
  // Closes the write end and waits for the guardian to decide (it exits at once when the record
  // no longer names the owner; otherwise after removing the cluster).
  ~ClusterGuard();
  ClusterGuard(const ClusterGuard&) = delete;
  ClusterGuard& operator=(const ClusterGuard&) = delete;

  pid_t guardian_pid() const { return guardian_.pid(); }

 private:
  int write_fd_ = -1;
  process::ChildProcess guardian_;  // started through sim/process: own session, fds 3 and 4
};

// The guardian's side (`geotrain emu guard`): reports ready on ready_fd (if >= 0), waits for EOF
// on owner_fd, then removes the cluster if its record still names owner. Returns the line to
// print ("" when the owner had removed or handed over the cluster).
std::string guard_cluster(const std::string& cluster, const ProcessIdentity& owner, int owner_fd,
                          int ready_fd, const StateStore& store);

}  // namespace geotrain::emu
