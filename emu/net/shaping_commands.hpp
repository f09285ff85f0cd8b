#pragma once
// The command text of link shaping, shared by emu's planner (plan.hpp: one namespace per rank,
// device eth0) and real/ (one machine per host, the interface its hosts file names). Pure: each
// function returns the Command a plan lists; nothing here reads or changes the system.
//
// On one sender's device: an HTB root, one class per destination (class 1:<index + 1>, rate =
// ceil), a u32 `match ip dst` filter per destination; with netem, a netem qdisc under each class
// (handle <index + 2>:). With the NFQUEUE delayer instead: iptables rules sending the packets to
// be delayed to a queue the delayer holds (README of emu/ and docs/emulated-network.md say why
// TCP is delayed on the receiver's INPUT chain and ICMP on the sender's OUTPUT chain).
#include <string>
#include <vector>

#include "emu/net/command.hpp"

namespace geotrain::emu {

// HTB burst for a rate: 1 ms of the rate, so the token bucket does not starve at multi-Gbit/s
// (what the feasibility trial found to reach 99.7%), and at least two full-size frames. Not more:
// a link's tokens refill while it idles, and a burst of B bytes lets the next B bytes leave at
// veth speed. With the 67 KB floor this used to have, a 100 KB ring-step chunk on a 56 Mbit/s
// link took 5 ms instead of 15 ms, so the emulated ring beat the scenario's link (ddp_bucketed
// case 3: measured 18% under the simulator). A GSO packet larger than the burst still leaves
// whole: HTB lets the class run into debt and waits it off, so the long-run rate is unchanged.
double htb_burst_bytes(double rate_Bps);

// tc class minor numbers are hex; destination index d uses 1:<d+1> (1:0 is the root).
std::string htb_class_id(int dst_index);

// netns "" = the namespace the command runs in (a real host's own).
Command htb_root(const std::string& netns, const std::string& dev);
// `tc class <verb>` (add, change) of the class towards destination index dst_index.
Command htb_class_command(const std::string& netns, const std::string& dev, const std::string& verb,
                          int dst_index, double rate_Bps);
// netem delay (whole microseconds) under the class of dst_index.
Command netem_delay(const std::string& netns, const std::string& dev, int dst_index, double delay_s);
// Packets to dst_address go to the class of dst_index.
Command destination_filter(const std::string& netns, const std::string& dev,
                           const std::string& dst_address, int dst_index);

// TCP buffer maxima, no slow start after idle, the congestion control, no cached metrics.
std::vector<Command> tcp_sysctls(const std::string& netns, double buffer_bytes,
                                 const std::string& congestion_control);
// What one TCP flow needs to fill a link: Linux gives the application half of tcp_rmem
// (tcp_adv_win_scale=1), so about twice the bandwidth x round-trip product.
double tcp_buffer_need_bytes(double bandwidth_Bps, double round_trip_s);

// nfqueue delay: every packet from src_address except ICMP, on the receiver's INPUT chain
// (verb "-A" appends, "-D" deletes the same rule).
Command ingress_delay_rule(const std::string& netns, const std::string& verb,
                           const std::string& src_address, int queue);
// ICMP to dst_address, on the sender's OUTPUT chain.
Command egress_icmp_delay_rule(const std::string& netns, const std::string& verb,
                               const std::string& dst_address, int queue);

}  // namespace geotrain::emu
