#pragma once
// Names and addresses of one emulated cluster. Everything a cluster creates carries the prefix
// "gt-<cluster>-" so `emu down --all` can find leftovers without a state file, and two clusters
// with different names never touch each other's objects.
//
//   namespaces  gt-<cluster>-<rank> (one per rank), gt-<cluster>-hub (the bridge)
//   interfaces  eth0 in each rank namespace; r<rank> + br0 in the hub (nothing in the host's
//               own namespace, so interface names cannot collide with the host's)
//   addresses   rank r = subnet base + r + 1, all inside the cluster's namespaces only
#include <cstdint>
#include <string>

namespace geotrain::emu {

inline constexpr const char* kNamespacePrefix = "gt-";
// The interface of each rank namespace (its end of the veth to the hub), where its traffic is
// shaped.
inline constexpr const char* kRankInterface = "eth0";

// An IPv4 prefix such as 10.200.0.0/16.
struct Ipv4Subnet {
  std::uint32_t base = 0;  // host byte order, host bits zero
  int prefix_len = 0;

  static Ipv4Subnet parse(const std::string& text);  // throws InputError
  std::string to_string() const;
  std::uint64_t size() const { return std::uint64_t{1} << (32 - prefix_len); }
  bool overlaps(const Ipv4Subnet& other) const;
  bool is_private() const;  // inside 10/8, 172.16/12 or 192.168/16
};

std::string format_ipv4(std::uint32_t address);

class ClusterLayout {
 public:
  // Throws InputError when the name is not [a-z0-9_]{1,24} or the subnet cannot hold the ranks.
  ClusterLayout(std::string cluster, int ranks, Ipv4Subnet subnet);

  const std::string& cluster() const { return cluster_; }
  int ranks() const { return ranks_; }
  const Ipv4Subnet& subnet() const { return subnet_; }

  std::string prefix() const { return kNamespacePrefix + cluster_ + "-"; }
  std::string rank_namespace(int rank) const;
  std::string hub_namespace() const { return prefix() + "hub"; }
  std::string rank_address(int rank) const;  // "10.200.0.1"
  std::string hub_port(int rank) const;      // r<rank>, inside the hub namespace

 private:
  std::string cluster_;
  int ranks_;
  Ipv4Subnet subnet_;
};

// A cluster name from a scenario name: lower case, [a-z0-9_] only, at most 24 characters.
std::string cluster_name_from(const std::string& scenario_name);

}  // namespace geotrain::emu
