#pragma once
// What `real apply` checks on a host before changing anything, in ONE ssh round trip: a shell
// script prints key=value lines (check_script), parsed here (parse_check), judged by
// check_problems (fatal: the host cannot be shaped) and check_warnings (apply goes on).
//
// Checked: root (uid 0; sudo is not supported), tc, iptables, ip, the interface, its root qdisc
// (a kernel default or nothing else, unless --force), a state file left by an earlier apply,
// sch_netem (tc adds a netem qdisc to the loopback device of a throw-away network namespace made
// by `unshare -n`, which vanishes with the command: nothing is left on the host), the delayer
// binary (delayer variant), ping and iperf3 (the measurement), the worker binary, and the version
// of the `geotrain` beside the worker (geotrain-worker has no --version: the build it comes from
// does). Also the current values of the sysctls apply will set, so the state file can restore them.
#include <map>
#include <string>
#include <vector>

#include "real/hosts_file.hpp"

namespace geotrain::real {

struct HostCheck {
  int uid = -1;
  bool tc = false, iptables = false, ip = false, interface = false, netem = false;
  bool delayer = false, worker = false, ping = false, iperf3 = false, state = false;
  std::string root_qdisc;  // `tc qdisc show dev X root`, first line
  std::string version;     // `<dir of worker>/geotrain --version`, "" when there is none
  std::map<std::string, std::string> sysctls;
};

// The root qdisc kinds a kernel puts on an interface by itself: apply replaces them silently.
bool default_qdisc(const std::string& kind);
// "htb" from "qdisc htb 1: root refcnt 2 ...", "" from "".
std::string qdisc_kind(const std::string& show_line);

std::string check_script(const HostSpec& host, const std::vector<std::string>& sysctl_names);
HostCheck parse_check(const std::string& out);

struct CheckNeeds {
  bool delayer = true;  // the delayer variant may be used
  bool measure = true;  // ping and iperf3
  bool force = false;   // replace a foreign root qdisc
};
// Fatal problems, one line each without the host's name.
std::vector<std::string> check_problems(const HostCheck& c, const HostSpec& host, const CheckNeeds& needs);
std::vector<std::string> check_warnings(const HostCheck& c, const HostSpec& host);

// "" when the host's geotrain version is ours, else the message (unit-tested).
std::string version_problem(const std::string& remote, const std::string& ours, const HostSpec& host);

}  // namespace geotrain::real
