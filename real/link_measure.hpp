#pragma once
// After `real apply`: every ordered host pair measured against what was configured. Delay: the
// minimum round trip of `ping` from the source to the destination's data address, halved (the
// configured value is the mean of the two directions, which the round trip crosses). Bandwidth:
// iperf3, its server started on the destination (one test, then it exits; a time limit ends it
// in any case), its client on the source, both over ssh; the receiver's TCP goodput with the
// first second (slow start) omitted.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "real/host_network.hpp"
#include "real/hosts_file.hpp"
#include "real/ssh_client.hpp"

namespace geotrain::real {

struct PairMeasure {
  int src = 0, dst = 0;  // host indices
  double configured_delay_ms = 0, measured_delay_ms = 0;
  double configured_mbps = 0, measured_mbps = 0;
  double delay_error_pct() const;
  double bandwidth_error_pct() const;
};

struct MeasureOptions {
  int iperf_port = 5201;
  int iperf_seconds = 3;  // measured, after 1 s omitted
  int pings = 5;
  SshOptions ssh;
};

std::vector<PairMeasure> measure_links(const HostsFile& hosts, const HostNetwork& net, const MeasureOptions& o);

// The minimum of "rtt min/avg/max/mdev = 22.1/..." in ms; throws Error when absent.
double ping_min_rtt_ms(const std::string& ping_output);
// end.sum_received.bits_per_second of iperf3 -J, in Mbit/s; throws Error when absent.
double iperf_received_mbps(const std::string& iperf_json);

std::string format_measures(const HostsFile& hosts, const std::vector<PairMeasure>& m);
nlohmann::json measures_json(const HostsFile& hosts, const std::vector<PairMeasure>& m);

}  // namespace geotrain::real
