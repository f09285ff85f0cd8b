#pragma once
// SimGrid configuration for the two network models a scenario can choose. Must run before the
// first zone is created (SimGrid refuses model changes after platform initialisation).
//
//  flow: CM02 with TCP-gamma 0 and no cross-traffic: a transfer alone on its path takes
//        latency + bytes / bandwidth, concurrent flows share links max-min fairly.
//  tcp:  LV08 (SimGrid's default, calibrated against packet-level TCP): latency x 13.01,
//        bandwidth x 0.97, 5% reverse-direction load, and each flow capped by its window:
//        TCP-gamma / (2 x latency), TCP-gamma = the scenario's socket buffer (tcp_buffer), the
//        same number the emulator writes into its TCP buffer sysctls.
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace geotrain::engine {

// The --cfg=... arguments for SimGrid's Engine, in order. Also quiets SimGrid's own logging.
std::vector<std::string> simgrid_arguments(NetworkModel model, double tcp_buffer_bytes,
                                           bool many_actors);

const char* network_model_name(NetworkModel model);

}  // namespace geotrain::engine

namespace geotrain::engine {

// Closed form of one transfer alone on a route (latency_s summed over links, bandwidth_Bps the
// bottleneck) under a model: what SimGrid computes for it, used by the aggregated ring.
//  flow: latency + bytes / bandwidth
//  tcp:  13.01 latency + bytes / (0.97 min(bandwidth, gamma / (2 x latency)))   (LV08,
//        checked against SimGrid in tests/sim/engine_behaviour_test.cpp)
struct TransferModel {
  NetworkModel model = NetworkModel::flow;
  double tcp_gamma_bytes = 0;
  double latency_s(double route_latency_s) const;
  double rate_Bps(double route_latency_s, double route_bandwidth_Bps) const;
  double seconds(double route_latency_s, double route_bandwidth_Bps, double bytes) const;
};

}  // namespace geotrain::engine
