#pragma once
// Measurements of one emulated link at the application level, from inside the namespaces.
//  - RTT: a small TCP echo (64-byte messages, TCP_NODELAY), timed by the application as a
//    training job's messages are (icmp_probe.hpp times ICMP as ping does, for comparison).
//  - Bandwidth: one bulk TCP flow (cubic where the kernel allows it per socket) measured at the
//    receiver over the last `window_s` of the transfer, after slow start has ended.
// Sockets are created inside the namespaces (setns on the calling thread) and then used from
// plain threads: a socket stays in the namespace it was created in.
#include <string>
#include <vector>

namespace geotrain::emu {

struct Endpoint {
  std::string netns;
  std::string address;  // IPv4 of the receiver, inside netns
  int port = 0;
};

struct RttResult {
  std::vector<double> rtt_s;  // one per probe, the connection's first exchange excluded
  double median_s = 0;  // what the link test judges
  double min_s = 0;
};

struct BulkResult {
  double goodput_Bps = 0;  // payload bytes per second over the window
  double bytes = 0;        // total payload received
  double window_s = 0;
  std::string congestion_control;  // what the sending socket used
};

// src_netns connects to dst (a listener this function creates in dst.netns).
RttResult measure_rtt(const std::string& src_netns, const Endpoint& dst, int probes, double timeout_s);
BulkResult measure_bulk(const std::string& src_netns, const Endpoint& dst, double duration_s,
                        double window_s, double timeout_s);

// How long a bulk transfer must run for slow start to end on a link of this rate and RTT
// (doubling from 10 segments up to twice the bandwidth-delay product, plus margin).
double ramp_time_s(double bandwidth_Bps, double rtt_s);

}  // namespace geotrain::emu
