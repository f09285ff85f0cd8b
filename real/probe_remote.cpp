#include "real/probe_remote.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include "real/shell_quote.hpp"
#include "sim/common/error.hpp"
#include "sim/process/output_pump.hpp"

namespace geotrain::real {

// As real/remote_commands.cpp's worker wrapper: the shell's own stderr goes to /dev/null while the
// command writes to the caller's through fd 4 (dash may report a killed job on stderr), stdin is
// kept as fd 3 for the watcher only, HUP and PIPE are ignored so that the wrapper outlives a
// hung-up session long enough to kill the group.
const std::string& tether_script() {
  static const std::string script = R"sh(exec 3<&0 4>&2 2>/dev/null
setsid "$@" </dev/null 2>&4 3<&- 4>&- &
pid=$!
trap '' HUP PIPE
( cat <&3 >/dev/null 2>&1; kill -KILL -"$pid" 2>/dev/null ) </dev/null >/dev/null 2>&1 4>&- &
watcher=$!
exec 3<&- 4>&-
wait "$pid"; status=$?
kill "$watcher" 2>/dev/null
exit "$status"
)sh";
  return script;
}

std::string tethered(const std::vector<std::string>& argv) {
  std::vector<std::string> words = {"sh", "-c", tether_script(), "geotrain-probe"};
  words.insert(words.end(), argv.begin(), argv.end());
  return shell_command(words);
}

std::string ping_all_command(const std::vector<std::string>& destinations, int pings) {
  static const std::string script = R"sh(n=$1; w=$2; shift 2
for d; do
  ( ping -n -q -c "$n" -i 0.2 -w "$w" "$d" 2>&1 | while IFS= read -r l; do printf '%s %s\n' "$d" "$l"; done ) &
done
wait
)sh";
  std::vector<std::string> argv = {"sh",
                                   "-c",
                                   script,
                                   "geotrain-probe-ping",
                                   std::to_string(pings),
                                   std::to_string(pings / 5 + 10)};
  argv.insert(argv.end(), destinations.begin(), destinations.end());
  return tethered(argv);
}

std::string iperf_server_command(const std::string& address, int port, int limit_s) {
  return tethered({"timeout", std::to_string(limit_s), "iperf3", "-s", "-p", std::to_string(port),
                   "-B", address});
}

std::string iperf_client_command(const std::string& address, int port, int seconds, int flows) {
  // iperf3 -J may exit 0 with an "error" key (e.g. the server is still busy): retried too.
  static const std::string script = R"sh(d=$1; p=$2; t=$3; n=$4
run() {
  i=0
  while :; do
    out=$(iperf3 -c "$d" -p "$p" -t "$t" -O 1 -P "$1" -J 2>&1) && ! printf '%s' "$out" | grep -q '"error"' && break
    i=$((i+1)); [ "$i" -lt 150 ] || { printf '%s\n' "$out"; return 1; }
    sleep 0.2
  done
  printf '%s\n' "$out"
}
echo '#one-flow'; run 1 || exit 1
echo '#n-flow'; run "$n" || exit 1
)sh";
  return tethered({"sh", "-c", script, "geotrain-probe-iperf", address, std::to_string(port),
                   std::to_string(seconds), std::to_string(flows)});
}

PingSummary parse_ping_summary(const std::string& out) {
  PingSummary s;
  const auto tx = out.find(" packets transmitted, ");
  if (tx == std::string::npos) throw Error("no summary in ping's output");
  const auto line = out.rfind('\n', tx);
  const std::size_t from = line == std::string::npos ? 0 : line + 1;
  if (std::sscanf(out.c_str() + from, "%d packets transmitted, %d", &s.sent, &s.received) != 2 ||
      s.sent <= 0)
    throw Error("no packet counts in ping's summary");
  s.loss_pct = 100.0 * (s.sent - s.received) / s.sent;
  const auto rtt = out.find("min/avg/max");
  if (rtt != std::string::npos) {
    const auto eq = out.find(" = ", rtt);
    double min = 0, avg = 0;
    if (eq != std::string::npos && std::sscanf(out.c_str() + eq + 3, "%lf/%lf", &min, &avg) == 2) {
      s.min_ms = min;
      s.avg_ms = avg;
    }
  }
  return s;
}

std::string lines_of(const std::string& output, const std::string& destination) {
  std::string out;
  const std::string prefix = destination + " ";
  std::size_t at = 0;
  while (at < output.size()) {
    auto nl = output.find('\n', at);
    if (nl == std::string::npos) nl = output.size();
    if (output.compare(at, prefix.size(), prefix) == 0)
      out += output.substr(at + prefix.size(), nl - at - prefix.size()) + "\n";
    at = nl + 1;
  }
  return out;
}

std::pair<std::string, std::string> split_iperf_runs(const std::string& output) {
  const auto one = output.find("#one-flow\n"), n = output.find("#n-flow\n");
  if (one == std::string::npos) throw Error("iperf3: no output of the one-flow test");
  if (n == std::string::npos || n < one) return {output.substr(one + 10), ""};
  return {output.substr(one + 10, n - one - 10), output.substr(n + 8)};
}

RemoteResult tethered_run(const HostSpec& host, const std::string& command, double timeout_s,
                          const SshOptions& options) {
  auto child = ssh_start(host, command, process::Stream::pipe(), process::Stream::pipe(), options);
  const int in = child.take_fd(0);  // held open while the command runs: the tether
  process::OutputPump pump(-1, child.take_fd(1), child.take_fd(2));
  const auto deadline = process::OutputPump::Clock::now() +
                        std::chrono::duration_cast<process::OutputPump::Clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  const bool in_time = pump.run("", deadline);
  int code = -1;
  bool ended = false;
  if (in_time)
    if (const auto c = child.wait_for(10)) code = *c, ended = true;
  ::close(in);
  if (!ended) {
    child.stop(1.0);
    throw HostError(host, fmt::format("timed out after {:g} s", timeout_s));
  }
  if (code == kSshFailedStatus) {
    const std::string why = last_line(pump.err());
    throw HostError(
        host, "ssh failed: " + (why.empty() ? std::string("exit status 255, no message") : why));
  }
  return {code, pump.out(), pump.err()};
}

}  // namespace geotrain::real
