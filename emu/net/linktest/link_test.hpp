#pragma once
// `geotrain emu linktest`: measures every selected pair of a running cluster (RTT probe, then a
// bulk flow) and compares with the scenario's effective network. Pairs run in rounds in which
// each rank sends to one peer and receives from one peer, so flows do not share a shaped class.
#include <string>
#include <vector>

#include "emu/net/cluster_layout.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::emu {

struct LinktestOptions {
  std::string pairs = "all";  // all | sample:K
  bool sequential = false;    // one pair at a time instead of rounds
  int probes = 10;
  double window_s = 0;        // 0 = max(1 s, 4 RTT)
  double delay_tolerance_s = 1e-3;
  double delay_tolerance_rel = 0.05;
  double bandwidth_tolerance_rel = 0.10;
};

struct LinkMeasurement {
  int src = 0, dst = 0;
  double delay_s = 0;            // configured one-way, src->dst
  double rtt_s = 0;              // configured: delay(src,dst) + delay(dst,src)
  double bandwidth_Bps = 0;      // configured src->dst (on the wire)
  double payload_ceiling_Bps = 0;  // what TCP payload can reach: bandwidth x 1448/1514
  double measured_rtt_s = 0;      // median of the probes
  double measured_min_rtt_s = 0;  // fastest probe
  double icmp_rtt_s = 0;          // median ICMP echo RTT as ping times it (shown, not judged)
  double goodput_Bps = 0;
  std::string congestion_control;
  int bulk_attempts = 0;  // a bulk probe below tolerance is repeated once (see link_test.cpp)
  int rtt_attempts = 0;   // so is an RTT probe off tolerance
  double delay_error_s() const { return measured_rtt_s / 2 - rtt_s / 2; }
  double bandwidth_error_rel() const { return goodput_Bps / payload_ceiling_Bps - 1; }
  bool delay_ok = false, bandwidth_ok = false;
};

// The ordered pairs to measure, grouped into rounds. Deterministic for a given seed.
std::vector<std::vector<std::pair<int, int>>> linktest_rounds(int ranks, const std::string& pairs,
                                                              bool sequential, std::uint64_t seed);

// Runs the rounds against the cluster with this layout (it must be up).
std::vector<LinkMeasurement> run_linktest(const Scenario& scenario, const ClusterLayout& layout,
                                          const LinktestOptions& options);

std::string linktest_table(const std::vector<LinkMeasurement>& links);
std::string linktest_json(const Scenario& scenario, const ClusterLayout& layout,
                          const LinktestOptions& options, const std::vector<LinkMeasurement>& links);

}  // namespace geotrain::emu
