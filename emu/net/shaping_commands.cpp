#include "emu/net/shaping_commands.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace geotrain::emu {

namespace {

constexpr double kMinBurstBytes = 2 * 1514;  // two full-size Ethernet frames
constexpr int kHtbQuantum = 65536;

std::string bits(double bytes_per_s) {
  return fmt::format("{}bit", static_cast<long long>(std::llround(bytes_per_s * 8)));
}

}  // namespace

double htb_burst_bytes(double rate_Bps) { return std::max(kMinBurstBytes, rate_Bps * 1e-3); }

std::string htb_class_id(int dst_index) { return fmt::format("1:{:x}", dst_index + 1); }

Command htb_root(const std::string& netns, const std::string& dev) {
  return {Tool::tc, netns, {"qdisc", "add", "dev", dev, "root", "handle", "1:", "htb"}};
}

Command htb_class_command(const std::string& netns, const std::string& dev, const std::string& verb,
                          int dst_index, double rate_Bps) {
  const std::string burst = std::to_string(static_cast<long long>(std::ceil(htb_burst_bytes(rate_Bps))));
  return {Tool::tc, netns,
          {"class", verb, "dev", dev, "parent", "1:", "classid", htb_class_id(dst_index), "htb", "rate",
           bits(rate_Bps), "ceil", bits(rate_Bps), "burst", burst, "cburst", burst, "quantum",
           std::to_string(kHtbQuantum)}};
}

Command netem_delay(const std::string& netns, const std::string& dev, int dst_index, double delay_s) {
  const auto delay_us = std::llround(delay_s * 1e6);
  return {Tool::tc, netns,
          {"qdisc", "add", "dev", dev, "parent", htb_class_id(dst_index), "handle",
           fmt::format("{:x}:", dst_index + 2), "netem", "delay", fmt::format("{}us", delay_us),
           "limit", "100000"}};
}

Command destination_filter(const std::string& netns, const std::string& dev,
                           const std::string& dst_address, int dst_index) {
  return {Tool::tc, netns,
          {"filter", "add", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1", "u32", "match",
           "ip", "dst", dst_address + "/32", "flowid", htb_class_id(dst_index)}};
}

std::vector<Command> tcp_sysctls(const std::string& netns, double buffer_bytes,
                                 const std::string& congestion_control) {
  const auto max = static_cast<long long>(buffer_bytes);
  auto w = [&netns](std::string setting) { return Command{Tool::sysctl, netns, {"-q", "-w", std::move(setting)}}; };
  return {w(fmt::format("net.ipv4.tcp_rmem=4096 131072 {}", max)),
          w(fmt::format("net.ipv4.tcp_wmem=4096 16384 {}", max)),
          w("net.ipv4.tcp_slow_start_after_idle=0"),
          // Not the host's bbr by default: see EmulationSpec::congestion_control.
          w("net.ipv4.tcp_congestion_control=" + congestion_control),
          // A connection must not start from the ssthresh a previous one cached for the same peer.
          w("net.ipv4.tcp_no_metrics_save=1")};
}

double tcp_buffer_need_bytes(double bandwidth_Bps, double round_trip_s) {
  return 2 * bandwidth_Bps * round_trip_s;
}

Command ingress_delay_rule(const std::string& netns, const std::string& verb,
                           const std::string& src_address, int queue) {
  return {Tool::iptables, netns,
          {"-w", verb, "INPUT", "-s", src_address + "/32", "!", "-p", "icmp", "-j", "NFQUEUE",
           "--queue-num", std::to_string(queue)}};
}

Command egress_icmp_delay_rule(const std::string& netns, const std::string& verb,
                               const std::string& dst_address, int queue) {
  return {Tool::iptables, netns,
          {"-w", verb, "OUTPUT", "-d", dst_address + "/32", "-p", "icmp", "-j", "NFQUEUE",
           "--queue-num", std::to_string(queue)}};
}

}  // namespace geotrain::emu
