#pragma once
// How long a Compute op takes on a device: from the device profile (flops / (peak for the
// model's dtype x efficiency) x the device's slowdown), or from a measured per-op profile file
// (written by `geotrain emulate`, read via simulation.compute_profile). The file format is
// documented next to the implementation (compute_model.cpp) and in sim/workload/README.md.
// With simulation.compute_variance: sampled, a profiled op's time is drawn from its measured
// samples per (rank, iteration, op index) instead, and under compute_variance: steps from one
// measured step per iteration, all ranks together (compute_sampler.hpp).
// A profile made beforehand by `geotrain profile` (it has measured_at) is refused at construction
// when the scenario's model or optimizer differs from what it was measured for.
#include <memory>
#include <string>

#include "sim/program/program.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/workload/compute_sampler.hpp"

namespace geotrain {

class ComputeModel {
 public:
  explicit ComputeModel(const Scenario& scenario);  // loads simulation.compute_profile if set
  ~ComputeModel();
  ComputeModel(ComputeModel&&) noexcept;
  ComputeModel& operator=(ComputeModel&&) noexcept;

  // The op's typical time: a profiled op's median, whatever compute_variance says.
  double seconds(const ComputeOp& op, int device) const;
  // The op's time at one execution: under compute_variance: sampled a draw for `site` from the
  // profile entry's samples, scaled as the median would be; under steps the time the site's
  // (rank, op) took in its iteration's drawn measured step; otherwise seconds(op, device).
  double seconds(const ComputeOp& op, int device, const ComputeSite& site) const;

  // A planned profile (one with measured_at, written by `geotrain profile`) must time every
  // Compute op of the Program by its own entry: throws InputError naming the first op it has no
  // entry for and the entries it has. Nothing to check for the device model or an emulator's
  // profile, which keep the nearest-entry fallback.
  void require_entries(const Program& program) const;

  // compute_variance: machine: the share of an op's spread the whole run shares, measured on the
  // profile (machine_speed.hpp); 0 under the other variances.
  double machine_share() const;

 private:
  void use_cpu_times(const std::string& file);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace geotrain
