#include "apps/plan_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "sim/compare/error_stats.hpp"
#include "sim/results/result_file.hpp"

namespace geotrain::cli {

PlanStats plan_stats(const std::vector<double>& errors_pct) {
  PlanStats s;
  std::vector<double> abs;
  for (const double e : errors_pct) abs.push_back(std::fabs(e));
  s.cases = static_cast<int>(abs.size());
  if (abs.empty()) return s;
  s.median_abs_pct = compare::median(abs);
  s.p90_abs_pct = compare::quantile(abs, 0.9);
  s.max_abs_pct = *std::max_element(abs.begin(), abs.end());
  s.within_5_pct = static_cast<int>(std::count_if(abs.begin(), abs.end(), [](double e) { return e <= 5; }));
  s.within_10_pct = static_cast<int>(std::count_if(abs.begin(), abs.end(), [](double e) { return e <= 10; }));
  return s;
}

bool ran_at_profile_speed(const PlanRow& row) {
  return row.run_compute_ratio > 0 && std::fabs(row.run_compute_ratio - 1) <= kSameSpeedTolerance;
}

bool measured_in_planned_range(const PlanRow& row) {
  return row.planned_p90_s > 0 && row.measured_s >= row.planned_p10_s && row.measured_s <= row.planned_p90_s;
}

std::string plan_group(const PlanRow& row) { return fmt::format("{} workers, {}", row.world_size, row.model_preset); }

namespace {

const std::string kAtProfileSpeed =
    fmt::format("all runs at the profile's speed (compute within {:g} %)", kSameSpeedTolerance * 100);

const std::string kProfiledBeforeRun = "all runs profiled just before (validate's case profile)";
const std::string kProfiledUnderLoad = "profiled just before, as many workers at once as the run's ranks";

// A case profile made by as many workers at once as the run put ranks on the host.
bool profiled_under_load(const PlanRow& r) { return r.profile_before_run && r.profile_concurrent >= r.world_size; }

nlohmann::ordered_json stats_json(const PlanStats& s) {
  return {{"cases", s.cases},
          {"median_abs_error_pct", s.median_abs_pct},
          {"p90_abs_error_pct", s.p90_abs_pct},
          {"max_abs_error_pct", s.max_abs_pct},
          {"within_5_pct", s.within_5_pct},
          {"within_10_pct", s.within_10_pct}};
}

std::string csv_text(const std::vector<PlanRow>& rows) {
  std::string csv =
      "variant,network,model,world_size,network_model,host_cores,measured_s,same_run_predicted_s,"
      "same_run_error_pct,planned_s,planning_error_pct,measured_mean_s,planned_mean_s,planning_mean_error_pct,"
      "planned_spread_pct,run_compute_ratio,profile,planned_p10_s,planned_p90_s,machine_share,measured_in_range,"
      "profile_before_run,profile_concurrent\n";
  for (const auto& r : rows)
    csv += fmt::format("{},{},{},{},{},{},{:.6f},{:.6f},{:.3f},{:.6f},{:.3f},{:.6f},{:.6f},{:.3f},{:.2f},{:.3f},{},"
                       "{:.6f},{:.6f},{:.3f},{},{},{}\n",
                       r.variant, r.network, r.model_preset, r.world_size, r.network_model, r.host_cores,
                       r.measured_s, r.same_run_predicted_s, r.same_run_error_pct, r.planned_s,
                       r.planning_error_pct, r.measured_mean_s, r.planned_mean_s, r.planning_mean_error_pct,
                       r.planned_spread_pct, r.run_compute_ratio, r.profile, r.planned_p10_s, r.planned_p90_s,
                       r.machine_share, measured_in_planned_range(r) ? 1 : 0, r.profile_before_run ? 1 : 0,
                       r.profile_concurrent);
  return csv;
}

// Groups in the order the README reports them: by model, then world size.
std::vector<std::string> groups_of(const std::vector<PlanRow>& rows) {
  std::vector<std::pair<std::pair<std::string, int>, std::string>> keyed;
  for (const auto& r : rows) keyed.push_back({{r.model_preset, r.world_size}, plan_group(r)});
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::string> groups;
  for (const auto& [key, g] : keyed)
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  groups.push_back("all");
  groups.push_back(kProfiledBeforeRun);
  groups.push_back(kProfiledUnderLoad);
  groups.push_back(kAtProfileSpeed);
  return groups;
}

struct GroupErrors {
  std::vector<double> same_run, planning, planning_mean;
  int in_range = 0;  // measured runs within the planned p10-p90 range
};

std::map<std::string, std::map<std::string, GroupErrors>> errors_by_model_and_group(const std::vector<PlanRow>& rows) {
  std::map<std::string, std::map<std::string, GroupErrors>> by;
  for (const auto& r : rows)
    for (const auto& g : {plan_group(r), std::string("all"), r.profile_before_run ? kProfiledBeforeRun : std::string(),
                          profiled_under_load(r) ? kProfiledUnderLoad : std::string(),
                          ran_at_profile_speed(r) ? kAtProfileSpeed : std::string()}) {
      if (g.empty()) continue;
      auto& e = by[r.network_model][g];
      e.same_run.push_back(r.same_run_error_pct);
      e.planning.push_back(r.planning_error_pct);
      e.planning_mean.push_back(r.planning_mean_error_pct);
      e.in_range += measured_in_planned_range(r) ? 1 : 0;
    }
  return by;
}

std::string table_text(const std::vector<PlanRow>& rows) {
  const auto by = errors_by_model_and_group(rows);
  std::string md =
      "| cases | model | n | same run: median \\|error\\| | same run: max | planned: median \\|error\\| | "
      "planned: p90 \\|error\\| | planned: max | planned: within 5 % / 10 % | run within planned p10-p90 |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : groups_of(rows))
    for (const auto& [model, groups] : by) {
      const auto it = groups.find(g);
      if (it == groups.end()) continue;
      const auto same = plan_stats(it->second.same_run), plan = plan_stats(it->second.planning);
      md += fmt::format("| {} | {} | {} | {:.1f}% | {:.1f}% | {:.1f}% | {:.1f}% | {:.1f}% | {} / {} | {} |\n", g,
                        model, plan.cases, same.median_abs_pct, same.max_abs_pct, plan.median_abs_pct,
                        plan.p90_abs_pct, plan.max_abs_pct, plan.within_5_pct, plan.within_10_pct,
                        it->second.in_range);
    }
  return md;
}

}  // namespace

std::string write_plan_summary(const std::string& dir, const std::vector<PlanRow>& rows,
                               const PlanProfiling& profiling, const std::vector<std::string>& left_out) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-plan-validation";
  j["version"] = 1;
  j["judged"] = "planned: predicted from a compute profile made beforehand by geotrain profile (one op at a "
                "time, one process, this machine), never from the judged run; same_run: the committed "
                "comparison, predicted from the judged run's own profile";
  j["profiling"] = {{"profiles_made", profiling.made},
                    {"profiles_reused", profiling.reused},
                    {"made_wall_s", profiling.made_wall_s},
                    {"all_profiles_wall_s", profiling.all_wall_s}};
  auto& stats = j["error_by_network_model"] = nlohmann::ordered_json::object();
  for (const auto& [model, groups] : errors_by_model_and_group(rows))
    for (const auto& [g, e] : groups)
      stats[model][g] = {{"same_run", stats_json(plan_stats(e.same_run))},
                         {"planned", stats_json(plan_stats(e.planning))},
                         {"planned_on_mean_intervals", stats_json(plan_stats(e.planning_mean))},
                         {"measured_in_planned_p10_p90", e.in_range}};
  j["left_out"] = left_out;
  const std::string table = table_text(rows);
  results::write_result_text(dir + "/summary.csv", csv_text(rows));
  results::write_result_text(dir + "/summary.json", j.dump(2) + "\n");
  results::write_result_text(dir + "/table.md", table);
  return table;
}

}  // namespace geotrain::cli
