#pragma once
// What `geotrain real probe` runs on the hosts, and how it reads the answers. Nothing is
// installed or changed on a host: every command is `sh -c '<script>' name args...` sent over ssh
// (the form of real/remote_commands.hpp), run under a **tether**:
//   the command starts in a session of its own (setsid), a watcher blocks reading the ssh
//   session's stdin, which the controller holds open as a pipe; when it closes (the probe is done
//   with the command, exits, is killed, even by kill -9, or its connection breaks), the watcher
//   SIGKILLs the command's whole process group. So an iperf3 server or client never outlives the
//   probe; `timeout` on the host bounds each command as well.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "real/hosts_file.hpp"
#include "real/ssh_client.hpp"

namespace geotrain::real {

// The tether script ($@ = the command); exits with the command's status (128 + signal).
const std::string& tether_script();
// The remote command: `sh -c <tether> geotrain-probe <argv...>`.
std::string tethered(const std::vector<std::string>& argv);

// Pings every destination at once, `pings` each 0.2 s apart (ping -n -q), each output line
// prefixed with "<destination> ".
std::string ping_all_command(const std::vector<std::string>& destinations, int pings);
// An iperf3 server on `address`:`port` under `timeout limit_s` (it serves the client's tests
// one after the other; the tether ends it when the controller is done).
std::string iperf_server_command(const std::string& address, int port, int limit_s);
// The client: a one-flow test, then a `flows`-flow test, each `seconds` long after 1 s omitted
// (slow start), iperf3 -J; each run retried while the server comes up (up to 30 s). Output:
// "#one-flow\n<json>\n#n-flow\n<json>\n".
std::string iperf_client_command(const std::string& address, int port, int seconds, int flows);

struct PingSummary {
  int sent = 0, received = 0;
  double loss_pct = 0;
  std::optional<double> min_ms, avg_ms;  // none when no reply came
};
// ping's summary ("N packets transmitted, M received, ..." and "rtt min/avg/max/mdev = ...");
// throws Error when there is none.
PingSummary parse_ping_summary(const std::string& ping_output);
// The lines of ping_all_command's output that belong to `destination` (prefix removed).
std::string lines_of(const std::string& output, const std::string& destination);
// iperf_client_command's output split into its two JSON documents; throws Error when malformed.
std::pair<std::string, std::string> split_iperf_runs(const std::string& output);

// Runs a tethered command to its end: stdin stays an open pipe while it runs and is closed after
// (or at the time limit, when the local ssh is killed too: the remote side then ends by itself).
// Errors as ssh_run: ssh's own failure and the time limit are HostErrors.
RemoteResult tethered_run(const HostSpec& host, const std::string& command, double timeout_s,
                          const SshOptions& options);

}  // namespace geotrain::real
