#pragma once
// The ssh test rig: N "hosts" that are network namespaces of this machine, each running its own
// OpenSSH server, so tests of `geotrain real` log in, shape and measure exactly as on remote
// machines. Layout (names carry our pid, so two test processes never share one):
//
//   gtr<pid>-br   a bridge "gtbr" (veths h0 .. h<N-1> and c plugged in)
//   gtr<pid>-h<i> host i: eth0 = 10.199.0.<i+1>/24, lo up, sshd -D listening on eth0
//   gtr<pid>-c    the controller: eth0 = 10.199.0.254/24; ssh and geotrain run in here
//
// A temp dir (mode 700) holds the client key, one host key and sshd config per host, the sshd
// logs, one workdir per host and hosts.yaml. The destructor stops every sshd by PID, kills every
// process still inside one of the namespaces (remote leftovers such as delayers), deletes the
// namespaces and the temp dir, whatever the test did. SIGINT/SIGTERM also delete the namespaces.
// Needs root, the `ip` tool and OpenSSH's sshd + ssh-keygen (rig_available() says why not).
#include <sys/types.h>

#include <string>
#include <vector>

#include "sim/process/child_process.hpp"

namespace geotrain::test {

struct RigHost {
  std::string name;    // hosts file name, e.g. ns-ohio
  std::string region;  // the scenario region it runs, e.g. Ohio ("" = `ranks: 1`)
};

// "" when the rig can run here, else why not (not root, no sshd, ...), for a skip message.
std::string rig_unavailable();

class SshRig {
 public:
  // build_dir: where geotrain-worker and geotrain-delayer are (written into hosts.yaml).
  SshRig(std::vector<RigHost> hosts, const std::string& build_dir);
  ~SshRig();
  SshRig(const SshRig&) = delete;
  SshRig& operator=(const SshRig&) = delete;

  std::size_t size() const { return hosts_.size(); }
  const std::string& dir() const { return dir_; }             // the temp dir
  const std::string& hosts_file() const { return hosts_file_; }  // <dir>/hosts.yaml
  const std::string& key() const { return key_; }              // the client's private key
  std::string address(std::size_t i) const;                   // 10.199.0.<i+1>
  std::string workdir(std::size_t i) const;                    // absolute, in the temp dir
  const std::string& host_netns(std::size_t i) const { return netns_[i]; }
  const std::string& controller_netns() const { return controller_; }
  // The ssh options written into hosts.yaml (key, no known_hosts, batch mode, quiet).
  std::vector<std::string> ssh_options() const;

  // `ip netns exec <controller> argv...`: a command as the controller runs it.
  std::vector<std::string> controller_argv(const std::vector<std::string>& argv) const;
  // The same as one shell line (words quoted), for tests that run through a shell.
  std::string controller_shell(const std::string& command_line) const;

  // Stops host i's sshd (a host that cannot be reached).
  void stop_sshd(std::size_t i);

 private:
  void build();
  void teardown() noexcept;
  void start_sshd(std::size_t i);
  void wait_sshd(std::size_t i);
  void write_hosts_file(const std::string& build_dir);

  std::vector<RigHost> hosts_;
  std::string dir_, key_, hosts_file_, bridge_, controller_;
  std::vector<std::string> netns_;
  std::vector<process::ChildProcess> sshd_;
};

}  // namespace geotrain::test
