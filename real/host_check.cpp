#include "real/host_check.hpp"

#include <fmt/format.h>

#include <sstream>

#include "real/host_state.hpp"
#include "real/shell_quote.hpp"

namespace geotrain::real {

namespace {

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

bool default_qdisc(const std::string& kind) {
  // What Linux attaches by itself (noqueue on virtual devices, mq on multi-queue NICs, the
  // net.core.default_qdisc choices fq_codel / pfifo_fast / fq / cake as distributions set them)
  // and no root qdisc at all. Anything else was put there by someone: refused without --force.
  return kind.empty() || kind == "noqueue" || kind == "pfifo_fast" || kind == "mq" || kind == "fq_codel" ||
         kind == "fq" || kind == "pfifo";
}

std::string qdisc_kind(const std::string& show_line) {
  std::istringstream in(show_line);
  std::string word, kind;
  in >> word >> kind;
  return word == "qdisc" ? kind : "";
}

std::string check_script(const HostSpec& host, const std::vector<std::string>& sysctl_names) {
  const std::string iface = shell_quote(host.interface), worker = shell_quote(host.worker);
  std::string s = "PATH=\"$PATH:/usr/sbin:/sbin\"\n";
  s += "echo uid=$(id -u)\n";
  for (const char* tool : {"tc", "iptables", "ip", "ping", "iperf3"})
    s += fmt::format("if command -v {0} >/dev/null 2>&1; then echo {0}=yes; fi\n", tool);
  s += fmt::format("if ip link show dev {0} >/dev/null 2>&1; then echo interface=yes; fi\n", iface);
  s += fmt::format("echo \"root_qdisc=$(tc qdisc show dev {0} root 2>/dev/null | head -n 1)\"\n", iface);
  s += "if unshare -n tc qdisc add dev lo root netem delay 1ms >/dev/null 2>&1; then echo netem=yes; fi\n";
  s += fmt::format("if [ -x {} ]; then echo delayer=yes; fi\n", shell_quote(host.delayer));
  s += fmt::format("if [ -x {} ]; then echo worker=yes; fi\n", worker);
  const std::string geotrain = shell_quote(dir_of(host.worker) + "/geotrain");
  s += fmt::format("if [ -x {0} ]; then echo \"version=$({0} --version 2>/dev/null | head -n 1)\"; fi\n", geotrain);
  s += fmt::format("if [ -e {}/state.json ]; then echo state=yes; fi\n", shell_quote(state_dir(host)));
  for (const auto& name : sysctl_names)
    s += fmt::format("echo \"sysctl {0}=$(sysctl -n {0} 2>/dev/null)\"\n", shell_quote(name));
  return s;
}

HostCheck parse_check(const std::string& out) {
  HostCheck c;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = line.substr(0, eq), value = line.substr(eq + 1);
    if (key == "uid") c.uid = std::atoi(value.c_str());
    else if (key == "tc") c.tc = true;
    else if (key == "iptables") c.iptables = true;
    else if (key == "ip") c.ip = true;
    else if (key == "ping") c.ping = true;
    else if (key == "iperf3") c.iperf3 = true;
    else if (key == "interface") c.interface = true;
    else if (key == "root_qdisc") c.root_qdisc = value;
    else if (key == "netem") c.netem = true;
    else if (key == "delayer") c.delayer = true;
    else if (key == "worker") c.worker = true;
    else if (key == "version") c.version = value;
    else if (key == "state") c.state = true;
    else if (key.rfind("sysctl ", 0) == 0) c.sysctls[key.substr(7)] = value;
  }
  return c;
}

std::vector<std::string> check_problems(const HostCheck& c, const HostSpec& host, const CheckNeeds& needs) {
  std::vector<std::string> p;
  if (c.uid != 0)
    p.push_back(fmt::format("logs in as uid {} (expected root, uid 0: tc, iptables and sysctl need it; "
                            "sudo is not supported)", c.uid));
  for (const auto& [ok, tool] : {std::pair{c.tc, "tc"}, {c.iptables, "iptables"}, {c.ip, "ip"}})
    if (!ok) p.push_back(fmt::format("no {} in PATH (expected iproute2 / iptables installed)", tool));
  if (needs.measure && !c.ping) p.push_back("no ping in PATH (expected iputils-ping, or apply --measure no)");
  if (needs.measure && !c.iperf3) p.push_back("no iperf3 in PATH (expected iperf3 installed, or apply --measure no)");
  if (c.ip && !c.interface) p.push_back(fmt::format("no interface '{}' (expected a device of `ip link`)", host.interface));
  const std::string kind = qdisc_kind(c.root_qdisc);
  if (c.interface && !default_qdisc(kind) && !needs.force)
    p.push_back(fmt::format("{} already has root qdisc '{}' (expected a kernel default such as noqueue, "
                            "pfifo_fast, mq, fq_codel; --force replaces it and down does not restore it)",
                            host.interface, kind));
  if (c.state)
    p.push_back(fmt::format("{}/state.json exists: applied already (run `geotrain real down` first)", state_dir(host)));
  if (needs.delayer && !c.delayer && !c.netem)
    p.push_back(fmt::format("no executable delayer at {} and no sch_netem (expected geotrain-delayer built there)",
                            host.delayer));
  return p;
}

std::vector<std::string> check_warnings(const HostCheck& c, const HostSpec& host) {
  std::vector<std::string> w;
  if (!c.worker)
    w.push_back(fmt::format("no executable worker at {} (apply does not need it; `real run` does)", host.worker));
  else if (c.version.empty())
    w.push_back(fmt::format("no geotrain beside {}: the worker's version was not compared", host.worker));
  return w;
}

std::string version_problem(const std::string& remote, const std::string& ours, const HostSpec& host) {
  if (remote.empty() || remote == ours) return "";
  const auto slash = host.worker.rfind('/');
  const std::string beside = slash == std::string::npos ? "geotrain" : host.worker.substr(0, slash) + "/geotrain";
  return fmt::format("{} (beside the worker) is version {}, this geotrain is {} (expected the same build on "
                     "every host)", beside, remote, ours);
}

}  // namespace geotrain::real
