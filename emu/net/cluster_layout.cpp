#include "emu/net/cluster_layout.hpp"

#include <fmt/format.h>

#include <cctype>

#include "sim/common/error.hpp"

namespace geotrain::emu {

namespace {

constexpr std::size_t kMaxClusterName = 24;

bool parse_octets(const std::string& text, std::uint32_t& out) {
  unsigned a, b, c, d;
  char tail;
  if (std::sscanf(text.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4) return false;
  if (a > 255 || b > 255 || c > 255 || d > 255) return false;
  out = (a << 24) | (b << 16) | (c << 8) | d;
  return true;
}

std::uint32_t mask_of(int prefix_len) {
  return prefix_len == 0 ? 0 : ~std::uint32_t{0} << (32 - prefix_len);
}

}  // namespace

Ipv4Subnet Ipv4Subnet::parse(const std::string& text) {
  const auto slash = text.find('/');
  std::uint32_t address = 0;
  int len = -1;
  if (slash != std::string::npos && parse_octets(text.substr(0, slash), address)) {
    try {
      std::size_t used = 0;
      len = std::stoi(text.substr(slash + 1), &used);
      if (used != text.size() - slash - 1) len = -1;
    } catch (const std::exception&) {
      len = -1;
    }
  }
  if (len < 8 || len > 30)
    throw InputError(fmt::format("--subnet = '{}': expected an IPv4 prefix such as 10.200.0.0/16 "
                                 "(length 8 to 30)", text));
  Ipv4Subnet s{address & mask_of(len), len};
  if (!s.is_private())
    throw InputError(fmt::format("--subnet = '{}': not a private range (expected inside "
                                 "10.0.0.0/8, 172.16.0.0/12 or 192.168.0.0/16)", text));
  return s;
}

std::string format_ipv4(std::uint32_t a) {
  return fmt::format("{}.{}.{}.{}", a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255);
}

std::string Ipv4Subnet::to_string() const {
  return fmt::format("{}/{}", format_ipv4(base), prefix_len);
}

bool Ipv4Subnet::overlaps(const Ipv4Subnet& other) const {
  const std::uint32_t m = mask_of(std::min(prefix_len, other.prefix_len));
  return (base & m) == (other.base & m);
}

bool Ipv4Subnet::is_private() const {
  for (const Ipv4Subnet& p : {Ipv4Subnet{0x0A000000u, 8}, Ipv4Subnet{0xAC100000u, 12},
                              Ipv4Subnet{0xC0A80000u, 16}}) {
    if (prefix_len >= p.prefix_len && p.overlaps(*this)) return true;
  }
  return false;
}

ClusterLayout::ClusterLayout(std::string cluster, int ranks, Ipv4Subnet subnet)
    : cluster_(std::move(cluster)), ranks_(ranks), subnet_(subnet) {
  bool ok = !cluster_.empty() && cluster_.size() <= kMaxClusterName;
  for (char c : cluster_) ok = ok && (std::islower(static_cast<unsigned char>(c)) ||
                                      std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  if (!ok)
    throw InputError(fmt::format("--cluster = '{}': expected 1 to {} characters of a-z, 0-9 or _",
                                 cluster_, kMaxClusterName));
  // Rank addresses are base+1 .. base+ranks; the broadcast address must stay free.
  if (ranks_ < 1 || static_cast<std::uint64_t>(ranks_) + 2 > subnet_.size())
    throw InputError(fmt::format("--subnet = '{}': too small for {} ranks", subnet_.to_string(),
                                 ranks_));
}

std::string ClusterLayout::rank_namespace(int rank) const {
  return prefix() + std::to_string(rank);
}

std::string ClusterLayout::rank_address(int rank) const {
  return format_ipv4(subnet_.base + static_cast<std::uint32_t>(rank) + 1);
}

std::string ClusterLayout::hub_port(int rank) const { return "r" + std::to_string(rank); }

std::string cluster_name_from(const std::string& scenario_name) {
  std::string out;
  for (char c : scenario_name) {
    if (out.size() == kMaxClusterName) break;
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) out.push_back(static_cast<char>(std::tolower(u)));
    else if (!out.empty() && out.back() != '_') out.push_back('_');
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out.empty() ? "cluster" : out;
}

}  // namespace geotrain::emu
