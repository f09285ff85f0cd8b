#pragma once
// The figures of `validate --plan` (apps/plan_validation.hpp): one row per case and network
// model, the planning error beside the same-run error the suite judged, statistics over the suite
// and per group (world size and model), written as summary.csv, summary.json and table.md.
#include <string>
#include <vector>

namespace geotrain::cli {

struct PlanRow {
  std::string variant, network, model_preset, network_model;
  int world_size = 0;
  double measured_s = 0, measured_mean_s = 0;
  double same_run_predicted_s = 0, same_run_error_pct = 0;  // the committed comparison's (the run's own profile)
  double planned_s = 0, planning_error_pct = 0;             // from the planned profile
  double planned_mean_s = 0, planning_mean_error_pct = 0;
  double planned_spread_pct = 0;  // (slowest - fastest) / median over the prediction's seeds
  // The 10th and 90th percentiles of the seeds' iteration times (compute_variance: machine): the
  // range the plan gives for a run on the profiled machine, and the share it drew with.
  double planned_p10_s = 0, planned_p90_s = 0;
  double machine_share = 0;
  int host_cores = 0;             // modelled shared cores (0: a device per rank)
  // The judged run's compute seconds over the planned profile's for the same ops (diagnostic only:
  // how fast the run's machine computed against the profile's; 0 unknown).
  double run_compute_ratio = 0;
  std::string profile;            // the planned profile's file name (<case>/plan_profile.json or the shared one's)
  bool profile_before_run = false;  // made by validate just before the run, on its machine
  int profile_concurrent = 1;       // workers that made the profile at once (geotrain profile --concurrent)
};

// |error| statistics: median, 90th percentile (interpolated), max, and counts within 5 and 10 %.
struct PlanStats {
  int cases = 0;
  double median_abs_pct = 0, p90_abs_pct = 0, max_abs_pct = 0;
  int within_5_pct = 0, within_10_pct = 0;
};
PlanStats plan_stats(const std::vector<double>& errors_pct);

// Runs that computed within this fraction of their planned profile's speed form a group of their
// own in the table ("runs at the profile's speed"): the planning error with the machine's speed
// out of it, which a plan cannot know (docs/validation.md, "What the planning error is made of").
inline constexpr double kSameSpeedTolerance = 0.10;
bool ran_at_profile_speed(const PlanRow& row);

// Whether the measured run lies within the planned 10th-90th percentile range (a calibrated
// range holds about 80 % of the runs).
bool measured_in_planned_range(const PlanRow& row);

// "4 workers, gpt-tiny": the group a row is reported in.
std::string plan_group(const PlanRow& row);

struct PlanProfiling {
  int made = 0, reused = 0;
  double made_wall_s = 0;  // wall time of the profiles made by this run
  double all_wall_s = 0;   // of every distinct profile used, as recorded when each was made
};

// Writes <dir>/summary.csv, summary.json and table.md; returns table.md's text.
std::string write_plan_summary(const std::string& dir, const std::vector<PlanRow>& rows,
                               const PlanProfiling& profiling, const std::vector<std::string>& left_out);

}  // namespace geotrain::cli
