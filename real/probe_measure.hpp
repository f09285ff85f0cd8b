#pragma once
// `geotrain real probe`: every ordered pair of a hosts file's hosts measured over ssh, nothing
// changed on the hosts (docs/real.md, "probe").
//   1. checks, one ssh per host, all hosts at once: reachable, `ping`, `iperf3`, `timeout`,
//      `setsid` in PATH; every problem of every host listed before anything is measured;
//   2. ping: each host pings every other host's data address at once (`pings` each, 0.2 s
//      apart), all hosts at the same time, with no iperf3 traffic beside it: RTT min/avg, loss;
//   3. throughput, in rounds of pairs that share no host (real/probe_rounds.hpp), the pairs of a
//      round at the same time: an iperf3 server on the destination, a client on the source, a
//      one-flow then an N-flow TCP test (receiver goodput, 1 s omitted). One progress line per
//      pair.
// Remote commands run tethered (real/probe_remote.hpp): they die with the probe.
#include <functional>
#include <string>
#include <vector>

#include "real/hosts_file.hpp"
#include "real/ssh_client.hpp"

namespace geotrain::real {

struct ProbeOptions {
  int flows = 8;    // N of the N-flow test (iperf3 -P)
  int seconds = 5;  // per iperf3 test, after 1 s omitted
  int pings = 20;   // per pair, 0.2 s apart
  int port = 5201;  // the iperf3 servers' port on the destinations' data addresses
  SshOptions ssh;
};

struct ProbePair {
  int src = 0, dst = 0;  // host indices
  int pings_sent = 0, pings_received = 0;
  double rtt_min_ms = 0, rtt_avg_ms = 0, loss_pct = 0;
  double one_flow_mbps = 0, n_flow_mbps = 0;
};

using ProbeSay = std::function<void(const std::string&)>;

// The problems found on the hosts, one line each: `<file>:<line>: host X (addr): what (expected
// ...)`.
std::vector<std::string> probe_check(const HostsFile& hosts, const ProbeOptions& o);

// Every ordered pair, in (src, dst) order. Throws Error naming each pair that failed.
std::vector<ProbePair> probe_hosts(const HostsFile& hosts, const ProbeOptions& o,
                                   const ProbeSay& say);

// The progress line of one pair: "ns-a -> ns-b: rtt min 40.21 ms avg 40.50 ms, loss 0 %, 1 flow
// 47.8 Mbit/s, 8 flows 48.0 Mbit/s".
std::string format_pair(const HostsFile& hosts, const ProbePair& p, int flows);

}  // namespace geotrain::real
