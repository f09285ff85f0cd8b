#pragma once
// The round trip as ping sees it: ICMP echo requests from a raw socket inside the sender's
// namespace, each reply timed by the kernel's receive timestamp (SO_TIMESTAMPNS), as iputils
// ping times it. The link test shows it beside the TCP echo so a user who checks a link with
// ping knows what to expect (docs/emulated-network.md).
#include <string>

#include "emu/net/linktest/link_probe.hpp"

namespace geotrain::emu {

// probes echo requests, one every spacing_s, from src_netns to dst_address; replies that do not
// come within timeout_s are missing from the result (median over those that came; 0 if none).
RttResult measure_icmp_rtt(const std::string& src_netns, const std::string& dst_address, int probes,
                           double spacing_s, double timeout_s);

}  // namespace geotrain::emu
