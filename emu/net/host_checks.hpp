#pragma once
// What `emu up` checks before it creates anything: privileges, that the cluster name is free,
// that the address range is not used by the host or another cluster, and which delay backend
// the kernel supports. Each failing check is one clear line (InputError, exit code 2).
#include <string>
#include <vector>

#include "emu/net/cluster_layout.hpp"
#include "emu/net/plan.hpp"
#include "emu/net/state_store.hpp"

namespace geotrain::emu {

// CAP_NET_ADMIN (links, qdiscs, iptables) and CAP_SYS_ADMIN (ip netns add mounts a namespace).
bool has_network_privileges();
// Throws InputError naming what is missing; `what` is the command ("geotrain emu up").
void require_network_privileges(const std::string& what);

// IPv4 prefixes the host uses, from `ip -o -4 addr show` and `ip -4 route show table all`
// output (default routes excluded: they overlap everything by definition).
std::vector<Ipv4Subnet> parse_host_prefixes(const std::string& addr_text, const std::string& route_text);
std::vector<Ipv4Subnet> host_prefixes();  // runs the two commands

// "" when subnet is free, else why not (one line).
std::string subnet_conflict(const Ipv4Subnet& subnet, const std::vector<Ipv4Subnet>& host,
                            const std::vector<ClusterRecord>& clusters);
// The first free 10.<k>.0.0/16, k = 200..254.
Ipv4Subnet pick_free_subnet(const std::vector<Ipv4Subnet>& host, const std::vector<ClusterRecord>& clusters);

// Throws InputError when any namespace of the cluster exists or a record names it.
void require_cluster_free(const std::string& cluster, const StateStore& store);

// Whether the kernel has sch_netem: adds a netem qdisc in an unnamed scratch namespace that
// dies with the probe (needs root; util-linux unshare).
bool netem_available();

}  // namespace geotrain::emu
