#include "emu/net/host_checks.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "emu/net/netns_util.hpp"
#include "emu/net/process_runner.hpp"
#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

constexpr int kCapNetAdmin = 12;
constexpr int kCapSysAdmin = 21;

unsigned long long effective_capabilities() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) return std::stoull(line.substr(7), nullptr, 16);
  return 0;
}

void add_prefix(const std::string& token, std::vector<Ipv4Subnet>& out) {
  if (token == "default" || token.empty() || !std::isdigit(static_cast<unsigned char>(token[0]))) return;
  const std::string text = token.find('/') == std::string::npos ? token + "/32" : token;
  const auto slash = text.find('/');
  unsigned a, b, c, d;
  int len;
  if (std::sscanf(text.c_str(), "%u.%u.%u.%u", &a, &b, &c, &d) != 4) return;
  try {
    len = std::stoi(text.substr(slash + 1));
  } catch (const std::exception&) {
    return;
  }
  if (len <= 0 || len > 32) return;
  const std::uint32_t addr = (a << 24) | (b << 16) | (c << 8) | d;
  const std::uint32_t mask = ~std::uint32_t{0} << (32 - len);
  out.push_back({addr & mask, len});
}

}  // namespace

bool has_network_privileges() {
  const unsigned long long caps = effective_capabilities();
  return (caps >> kCapNetAdmin & 1) && (caps >> kCapSysAdmin & 1);
}

void require_network_privileges(const std::string& what) {
  if (has_network_privileges()) return;
  throw InputError(fmt::format(
      "{}: needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network namespaces; nothing "
      "was created (run it as root, or use --dry-run to print the plan)", what));
}

std::vector<Ipv4Subnet> parse_host_prefixes(const std::string& addr_text, const std::string& route_text) {
  std::vector<Ipv4Subnet> out;
  std::istringstream addrs(addr_text);
  std::string line;
  while (std::getline(addrs, line)) {
    std::istringstream words(line);
    std::string w;
    while (words >> w)
      if (w == "inet" && words >> w) add_prefix(w, out);
  }
  std::istringstream routes(route_text);
  while (std::getline(routes, line)) {
    std::istringstream words(line);
    std::string first, second;
    words >> first >> second;
    // "local 127.0.0.1 dev lo table local ..." / "broadcast ..." / "10.0.0.0/8 via ..."
    if (first == "local" || first == "broadcast" || first == "unicast" || first == "blackhole" ||
        first == "unreachable" || first == "prohibit" || first == "throw")
      add_prefix(second, out);
    else
      add_prefix(first, out);
  }
  return out;
}

std::vector<Ipv4Subnet> host_prefixes() {
  const auto addrs = run_checked({"ip", "-o", "-4", "addr", "show"});
  const auto routes = run_checked({"ip", "-4", "route", "show", "table", "all"});
  return parse_host_prefixes(addrs.out, routes.out);
}

std::string subnet_conflict(const Ipv4Subnet& subnet, const std::vector<Ipv4Subnet>& host,
                            const std::vector<ClusterRecord>& clusters) {
  for (const auto& h : host)
    if (h.overlaps(subnet))
      return fmt::format("address range {} overlaps {}, which this host uses (pick another with "
                         "--subnet, e.g. 10.231.0.0/16)", subnet.to_string(), h.to_string());
  for (const auto& c : clusters) {
    if (c.subnet.empty()) continue;
    if (Ipv4Subnet::parse(c.subnet).overlaps(subnet))
      return fmt::format("address range {} is in use by geotrain cluster '{}' (pick another with "
                         "--subnet, or take it down: geotrain emu down {})", subnet.to_string(),
                         c.cluster, c.cluster);
  }
  return "";
}

Ipv4Subnet pick_free_subnet(const std::vector<Ipv4Subnet>& host, const std::vector<ClusterRecord>& clusters) {
  for (std::uint32_t k = 200; k <= 254; ++k) {
    const Ipv4Subnet s{(10u << 24) | (k << 16), 16};
    if (subnet_conflict(s, host, clusters).empty()) return s;
  }
  throw InputError("no free address range among 10.200.0.0/16 .. 10.254.0.0/16 (give one with --subnet)");
}

void require_cluster_free(const std::string& cluster, const StateStore& store) {
  const auto existing = list_namespaces(kNamespacePrefix + cluster + "-");
  if (!existing.empty() || store.load(cluster))
    throw InputError(fmt::format("cluster '{}' already exists ({}); take it down first "
                                 "(geotrain emu down {}) or pick another name with --cluster",
                                 cluster, existing.empty() ? "state file in " + store.dir()
                                                           : "namespace " + existing.front(),
                                 cluster));
}

bool netem_available() {
  // In an unnamed namespace of its own (unshare): it vanishes with the tc process, so a geotrain
  // killed during the probe leaves no namespace behind (a named one would stay until removed).
  return run_process({"unshare", "--net", "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms"})
             .status == 0;
}

}  // namespace geotrain::emu
