#pragma once
// Hand-built scenarios and Programs for the engine's closed-form tests (no strategy builders).
#include <vector>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain::test {

// n devices, every ordered pair `delay_s` / `bandwidth_Bps` (an explicit matrix).
Scenario uniform_scenario(int n, double delay_s, double bandwidth_Bps);
// Explicit matrix scenario; link(i, j) = given per ordered pair.
Scenario matrix_scenario(int n, const std::vector<double>& delay_s, const std::vector<double>& bandwidth_Bps);
// One region of n devices (the regions platform applies when forced).
Scenario one_region_scenario(int n, double delay_s, double bandwidth_Bps);
// n devices in three regions of unequal size and NIC speed (device d in region 0 when d % 5 is
// 0, 1 when it is 1 or 2, else 2); WAN links slower than some NICs and faster than others, so
// that some flows are bound by the WAN and some by the NICs they share.
Scenario three_region_scenario(int n);

// The textbook ring all-reduce on n ranks with equal links: 2(N-1)/N S/B + 2(N-1) L.
double ring_allreduce_closed_form_s(int n, double bytes, double latency_s, double bandwidth_Bps);

// Rank 0's Compute ops in seconds at tflop_seconds() (1 Tflop = 1 s).
double rank0_compute_s(const Program& p);

// A Program of n ranks on devices 0..n-1 with a "world" group 0 and empty op lists.
Program empty_program(int n);

Op compute(double seconds, ComputeKind kind = ComputeKind::forward, int stage = 0, int micro_batch = 0);
Op collective(CollectiveKind kind, double bytes, CollectiveAlgorithm a = CollectiveAlgorithm::ring,
              int root = 0, bool nonblocking = false, GroupId group = 0);
Op send(int peer, double bytes, int tag, bool nonblocking = false);
Op recv(int peer, double bytes, int tag, bool nonblocking = false);
Op wait(std::vector<int> ops);

// GPipe over S stages (rank s = stage s), M micro-batches: forward all, then backward all
// (reverse order), activations/gradients of `bytes` between stages, nonblocking sends.
Program gpipe_program(int stages, int micro_batches, double forward_s, double backward_s, double bytes);

}  // namespace geotrain::test
