#pragma once
// Running commands on a host of a hosts file with the system's OpenSSH client:
//   ssh -o BatchMode=yes -o ConnectTimeout=<s> [-p port] <ssh_options...> [user@]host -- <command>
// The user's ~/.ssh/config, agent and known_hosts apply as for any ssh; BatchMode means ssh
// never asks for a password or a host key confirmation (geotrain handles no secrets). Every
// child goes through sim/process (no fork here). The remote command is ONE shell string: build
// it with shell_command() (real/shell_quote.hpp).
#include <string>
#include <vector>

#include "real/hosts_file.hpp"
#include "sim/common/error.hpp"
#include "sim/process/child_process.hpp"
#include "sim/process/child_spec.hpp"

namespace geotrain::real {

// What ssh exits with when it could not connect or log in, or lost the connection; the remote
// command's own status is passed through otherwise.
constexpr int kSshFailedStatus = 255;

struct SshOptions {
  double connect_timeout_s = 10;  // ssh's ConnectTimeout (whole seconds, at least 1)
  std::string ssh = "ssh";        // the client, looked up in PATH
  std::string netns;              // "" = ours; else run ssh inside this namespace (the test rig)
};

// A failure on one host: the message starts with `host <name> (<address>): `.
class HostError : public Error {
 public:
  HostError(const HostSpec& host, const std::string& what);
  const std::string& host_name() const { return host_name_; }

 private:
  std::string host_name_;
};

// "host ns-ohio (root@10.199.0.2)": how messages name a host.
std::string host_label(const HostSpec& host);

// The ssh argv for running `remote_command` on host (argv[0] = options.ssh).
std::vector<std::string> ssh_argv(const HostSpec& host, const std::string& remote_command,
                                  const SshOptions& options = {});

struct RemoteRun {
  std::string stdin_text;  // fed to the remote command's stdin, then closed
  double timeout_s = 60;   // for the whole ssh (connect included); 0 = no limit
};

struct RemoteResult {
  int status = -1;  // the remote command's exit status (255 never: that is an ssh failure)
  std::string out, err;
};

// Runs the command and returns its status and output. Throws HostError
// "host X (addr): ssh failed: <ssh's last stderr line>" when ssh exits 255 (it could not connect
// or log in), and "... timed out after N s: <command>" at the limit (the local ssh is killed; a
// remote command may outlive it, see docs/real.md).
RemoteResult ssh_run(const HostSpec& host, const std::string& remote_command, const RemoteRun& run = {},
                     const SshOptions& options = {});
// The same, but a non-zero status is a HostError too: "host X (addr): <what> failed (exit N): <stderr>".
RemoteResult ssh_run_checked(const HostSpec& host, const std::string& remote_command, const std::string& what,
                             const RemoteRun& run = {}, const SshOptions& options = {});

// A long-running remote command as our child (for `real run`): stdin is a pipe we keep open (no
// -n), so the remote side can watch it and end its work when it closes; stdout/stderr as given.
// The local ssh is in its own process group and dies with us (PR_SET_PDEATHSIG). Killing it does
// NOT stop the remote command by itself: the remote side must react to its stdin closing.
process::ChildProcess ssh_start(const HostSpec& host, const std::string& remote_command,
                                process::Stream out = process::Stream::pipe(),
                                process::Stream err = process::Stream::pipe(), const SshOptions& options = {});

// The last non-empty line of ssh's stderr (what ssh says went wrong), "" when there is none.
std::string last_line(const std::string& text);

}  // namespace geotrain::real
