// `geotrain emulate` with network.bandwidth_changes (label emu;launch, root): ddp_ring_2 whose
// links fall to 0.2 x mid-run. The drop must really be applied (bandwidth_changes.csv, on time)
// and the iterations must slow down by the factor the simulator predicts for the dropped links,
// given the run's own compute profile (a ratio: the point is the change, not the model's
// accuracy, which tests/compare covers).
//
// The test must hold on any host, fast or slow, idle or loaded. A drop at a fixed time is missed
// by a fast host (all steps done before it) and comes too early on a slow one. So the test sizes
// itself: a calibration run without the drop measures when step kStepsBefore ends, and the drop
// is placed there. If the host's speed changed between runs and too few steps fall on one side,
// the attempt's own timings place the drop for the next attempt (a measurement, not a retry of
// the same thing). emulate itself marks a change that came after training ended as not reached
// and warns; the last section checks that.
#include <catch2/catch.hpp>

#include "tests/support/shell.hpp"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace bandwidth_change_root_test {

namespace {

using geotrain::test::sh;
const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenario = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2_bandwidth_drop.yaml";
constexpr double kFactor = 0.2;
constexpr int kStepsBefore = 4;  // step 0 (warm-up) + 3 judged steps before the drop
constexpr int kSteps = 12;       // the 8 after it take ~3x as long each
constexpr int kAttempts = 3;

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Per iteration [first op start, last op end] over both ranks, in seconds after the run's first
// op started (t = 0 of network.bandwidth_changes).
std::map<int, std::pair<double, double>> iteration_spans(const std::string& run) {
  std::map<int, std::pair<double, double>> span;
  double first = 1e300;
  for (const auto& row : read_csv(run + "/ops.csv")) {
    const int it = std::stoi(row.at(2));
    const double start = std::stod(row.at(7)), end = std::stod(row.at(8));
    first = std::min(first, start);
    auto [pos, fresh] = span.try_emplace(it, start, end);
    if (!fresh) pos->second = {std::min(pos->second.first, start), std::max(pos->second.second, end)};
  }
  for (auto& [it, s] : span) s = {s.first - first, s.second - first};
  return span;
}

std::string drop_at(double at_s) { return fmt::format("[{{at: {:.3f}s, factor: {}}}]", at_s, kFactor); }

geotrain::test::ShellRun emulate(const std::string& out, int steps, const std::string& changes) {
  std::filesystem::remove_all(out);
  return sh(kBin + " emulate " + kScenario + " --steps " + std::to_string(steps) + " --out " + out +
            " --linktest-advisory --set 'network.bandwidth_changes=" + changes + "'");
}

// Simulated iteration time of the scenario with `changes`, on the run's compute profile.
double simulated_iteration_s(const std::string& run, const std::string& changes, const std::string& out) {
  std::filesystem::remove_all(out);
  const auto r = sh(kBin + " simulate " + kScenario + " --iterations 1 --out " + out +
                    " --set simulation.compute_profile=" + run + "/compute_profile.json" +
                    " --set simulation.rendezvous=true --set simulation.payload_efficiency=0.956407" +
                    " --set 'network.bandwidth_changes=" + changes + "'");
  INFO(r.out);
  REQUIRE(r.status == 0);
  std::ifstream in(out + "/summary.json");
  return nlohmann::json::parse(in)["iteration_time_s"].get<double>();
}

void check_nothing_left(const std::string& run) {
  const auto manifest = nlohmann::json::parse(std::ifstream(run + "/manifest.json"));
  const std::string cluster = manifest["cluster"].get<std::string>();
  CHECK(sh("ip netns list | grep '^gt-" + cluster + "-' || true").out.empty());
  CHECK(sh("pgrep -af '[g]eotrain-worker.*" + run + "' || true").out.empty());
}

}  // namespace

TEST_CASE("emulate: a bandwidth drop mid-run is applied and slows iterations as simulated",
          "[emu][launch][root][bandwidth]") {
  if (!geotrain::test::have_root("emulate tests")) return;
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("geotrain-bwdrop-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);

  // Calibration: the same run without the drop; the drop goes where step kStepsBefore - 1 ended.
  const std::string calibration = dir + "/calibration";
  const auto cal = emulate(calibration, kStepsBefore, "[]");
  INFO(cal.out);
  REQUIRE(cal.status == 0);
  double at_s = iteration_spans(calibration).at(kStepsBefore - 1).second;
  check_nothing_left(calibration);

  std::string run;
  std::vector<double> before, after;
  double applied_s = 0;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    run = dir + "/attempt-" + std::to_string(attempt);
    const auto r = emulate(run, kSteps, drop_at(at_s));
    INFO(r.out);
    REQUIRE(r.status == 0);
    check_nothing_left(run);

    // Both directions of the one pair re-rated, on time.
    const auto changes = read_csv(run + "/bandwidth_changes.csv");
    REQUIRE(changes.size() == 2);
    for (const auto& c : changes) {
      REQUIRE(c.size() == 8);
      CHECK(std::stod(c[0]) == Approx(at_s).margin(1e-3));
      CHECK(std::stod(c[5]) == kFactor);
      if (c[7] != "\"applied\"") continue;  // not reached: too few steps after it, judged below
      applied_s = std::max(applied_s, std::stod(c[1]));
      CHECK(std::stod(c[1]) >= std::stod(c[0]));
    }

    const auto spans = iteration_spans(run);
    before.clear();
    after.clear();
    for (const auto& [it, s] : spans) {
      if (it == 0) continue;  // warm-up
      if (s.second <= at_s) before.push_back(s.second - s.first);
      else if (applied_s > 0 && s.first >= applied_s + 0.05) after.push_back(s.second - s.first);
    }
    UNSCOPED_INFO("attempt " << attempt << ": drop at " << at_s << " s, iterations before it " << before.size()
                             << ", after " << after.size());
    if (before.size() >= 2 && after.size() >= 3) break;
    at_s = spans.at(kStepsBefore - 1).second;  // this attempt's own timing (steps before a drop are undisturbed)
  }
  REQUIRE(before.size() >= 2);
  REQUIRE(after.size() >= 3);
  // tc re-rated the classes promptly after the planned moment (a thread and one `tc -batch`).
  CHECK(applied_s < at_s + 1.0);

  const double sim_before = simulated_iteration_s(run, "[]", dir + "/sim-before");
  const double sim_after = simulated_iteration_s(run, "[{at: 0s, factor: " + std::to_string(kFactor) + "}]",
                                                 dir + "/sim-after");
  const double measured_before = median(before), measured_after = median(after);
  INFO("measured " << measured_before << " -> " << measured_after << " s, simulated " << sim_before << " -> "
                   << sim_after << " s");
  CHECK(sim_after > 1.5 * sim_before);  // the scenario is one where the drop matters
  // The rise (after / before) at least 0.8x the simulated one: the drop was applied, with the
  // configured factor. Not much above either: measured rises were 1.06-1.18x the simulated one on
  // a loaded host, 1.45x on a quiet one (before the drop a quiet host computes faster, after it
  // the two directions' bulk data delay each other's ACKs in the HTB queues, which the flow
  // model does not see; emu/launch/README.md). A factor applied twice would be ~5x.
  const double rise_ratio = (measured_after / measured_before) / (sim_after / sim_before);
  CHECK(rise_ratio > 0.8);
  CHECK(rise_ratio < 2.0);
  WARN("bandwidth drop x" << kFactor << " at " << at_s << " s: measured " << measured_before << " -> "
                          << measured_after << " s per iteration, simulated " << sim_before << " -> " << sim_after
                          << " s");

  // The simulator records the same schedule for plots.
  const auto sim = sh(kBin + " simulate " + kScenario + " --iterations 1 --out " + dir + "/sim-schedule");
  REQUIRE(sim.status == 0);
  const auto sim_changes = read_csv(dir + "/sim-schedule/bandwidth_changes.csv");
  CHECK(sim_changes.size() == 2);
  for (const auto& c : sim_changes) CHECK(std::stod(c.at(0)) == 4.0);  // the scenario file's own drop
  std::filesystem::remove_all(dir);
}

TEST_CASE("emulate: a bandwidth change after training ended is recorded as not reached, with a warning",
          "[emu][launch][root][bandwidth]") {
  if (!geotrain::test::have_root("emulate tests")) return;
  const std::string run =
      (std::filesystem::temp_directory_path() / ("geotrain-bwlate-" + std::to_string(getpid()))).string();
  // Two steps never last an hour on any host.
  const auto r = emulate(run, 2, "[{at: 3600s, factor: 0.5}]");
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("2 of 2 change(s) came after training ended") != std::string::npos);
  for (const auto& c : read_csv(run + "/bandwidth_changes.csv")) {
    REQUIRE(c.size() == 8);
    CHECK(c[1].empty());
    CHECK(c[7].rfind("\"not reached", 0) == 0);
  }
  check_nothing_left(run);
  std::filesystem::remove_all(run);
}

}  // namespace bandwidth_change_root_test
