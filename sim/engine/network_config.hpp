#pragma once
// SimGrid configuration for the two network models a scenario can choose. Must run before the
// first zone is created (SimGrid refuses model changes after platform initialisation).
//
//  flow: CM02 with TCP-gamma 0 and no cross-traffic: a transfer alone on its path takes
//        latency + bytes / bandwidth, concurrent flows share links max-min fairly.
//  tcp:  LV08's sharing (RTT-unfair weights, 5% reverse-direction load for the ACKs) with
//        each flow capped by its window: TCP-gamma / (2 x latency), TCP-gamma = half the
//        scenario's socket buffer (tcp_buffer is what the emulator writes into its TCP buffer
//        sysctls; Linux gives the application half of it, tcp_adv_win_scale = 1). LV08's
//        calibrated factors are NOT used: its latency x 13.01 stands for the slow start of
//        fresh short flows, while Gloo's connections live for the whole run with
//        tcp_slow_start_after_idle = 0 (measured: it over-predicted the validation suite by
//        44-665%); its bandwidth x 0.97 is the header share that simulation.payload_efficiency
//        (1448/1514) already applies.
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace geotrain::engine {

// The --cfg=... arguments for SimGrid's Engine, in order. Also quiets SimGrid's own logging.
// `bandwidth_changes`: the platform's links get bandwidth profiles (network.bandwidth_changes).
std::vector<std::string> simgrid_arguments(NetworkModel model, double tcp_buffer_bytes,
                                           bool many_actors, bool bandwidth_changes = false);

const char* network_model_name(NetworkModel model);

// The window a socket buffer of tcp_buffer_bytes gives the application (half: tcp_adv_win_scale 1).
double tcp_window_bytes(double tcp_buffer_bytes);

}  // namespace geotrain::engine

namespace geotrain::engine {

// Closed form of one transfer alone on a route (latency_s summed over links, bandwidth_Bps the
// bottleneck) under a model: what SimGrid computes for it, used by the aggregated ring.
//  flow: latency + bytes / bandwidth
//  tcp:  latency + bytes / min(bandwidth, gamma / (2 x latency)), gamma = tcp_buffer / 2
//        (checked against SimGrid in tests/sim/engine_behaviour_test.cpp)
struct TransferModel {
  NetworkModel model = NetworkModel::flow;
  double tcp_buffer_bytes = 0;  // the scenario's tcp_buffer; the window is half of it
  double rate_Bps(double route_latency_s, double route_bandwidth_Bps) const;
  double seconds(double route_latency_s, double route_bandwidth_Bps, double bytes) const;
};

}  // namespace geotrain::engine
