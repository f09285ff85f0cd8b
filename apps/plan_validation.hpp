#pragma once
// `geotrain validate --plan`: the suite's error of a prediction made BEFORE the run.
//
// For every case of scenarios/validation, the measured figure is the one the suite already judged
// (the committed comparison.json: the median run's median completion interval, and its run's
// summary.json for the iterations, warm-up, host cores and collectives); the prediction comes from
// a compute profile made beforehand by `geotrain profile` in a separate process, on this machine,
// one op at a time with nothing beside it — never from the judged run. Where the run's ranks
// outnumbered its host's cores, the prediction shares the profile's CPU times over those cores
// (simulation.host_cores). The same-run figures of the committed comparison are kept beside the
// planning ones. Output: <out>/plan/summary.{csv,json}, table.md; profiles in <profiles>/, one per
// distinct planned-profile key (emu/profile/profile_key.hpp), reused when already there.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace geotrain::cli {

struct PlanValidationOptions {
  std::vector<std::filesystem::path> cases;  // suite scenario files, <variant>__<network>.yaml
  std::string out = "results/validation";    // the suite's results: committed comparisons are read here
  std::string profiles;                      // planned profiles; "" = <out>/plan/profiles
  int repeat = 20;                           // geotrain profile --repeat
  int warmup = 3;                            // geotrain profile --warmup
  double min_seconds = 30;                   // geotrain profile --min-seconds
  int seeds = 15;                            // predictions per network model (compute draws)
  double background_cores = 0;               // simulation.host_background_cores (a plan has no run to measure it)
  std::string network_model = "both";
};

// The file a suite case keeps the profile made just before its run: validate makes it (a
// `geotrain profile` child, the run's machine a minute before the run) and validate --plan
// predicts the case from it in preference to the shared folder of profiles.
inline constexpr const char* kCaseProfileFile = "plan_profile.json";

// Makes <case_dir>/plan_profile.json for `scenario` (geotrain profile --repeat/--warmup from
// `options`, --min-seconds, --concurrent: workers timing at once, as many as the run's ranks on
// the host; its log in <case_dir>/plan_profile.log); an old one is removed first, so a case's
// profile is never from another run's machine. Throws what run_child throws.
void make_case_profile(const std::filesystem::path& scenario, const std::string& case_dir,
                       const PlanValidationOptions& options, double min_seconds, int concurrent);

// A suite file's labels: "ddp_ring__case5" -> {"ddp_ring", "case5"}; {stem, ""} without "__".
std::pair<std::string, std::string> suite_case_labels(const std::string& stem);

// Returns 0. Cases without a committed comparison are left out and said; a failed case is said and
// the others go on. Throws InputError for a bad folder before anything is written.
int run_plan_validation(const PlanValidationOptions& options);

}  // namespace geotrain::cli
