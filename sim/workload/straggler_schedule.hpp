#pragma once
// Seeded stragglers (SD-Pipe's `--hetero p`): before each forward or backward op a rank sleeps
// `sleep_s` with probability p. The draw for (rank, iteration, op index) comes from a
// counter-based generator (dynamic_rules.hpp: unit_draw), so the simulator and the emulator,
// which visit ops in different orders, sleep at exactly the same places. Per-device slowdown
// factors are separate (Device::slowdown, applied by the compute model and the worker).
#include <cstdint>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

class StragglerSchedule {
 public:
  explicit StragglerSchedule(const StragglerSpec& spec);

  // Extra seconds before op `op_index` of `rank` in iteration `iteration` (0 for ops other than
  // forward/backward Compute ops, and when the probability is 0).
  double sleep_s(int rank, std::int64_t iteration, int op_index, const Op& op) const;
  // The draw itself, for any op: `sleep_s` of the spec with probability p, else 0.
  double draw_s(int rank, std::int64_t iteration, int op_index) const;

  bool active() const { return spec_.probability > 0 && spec_.sleep_s > 0; }
  const StragglerSpec& spec() const { return spec_; }

 private:
  StragglerSpec spec_;
};

}  // namespace geotrain
