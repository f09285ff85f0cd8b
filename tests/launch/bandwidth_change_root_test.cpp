// `geotrain emulate` with network.bandwidth_changes (label emu;launch, root): ddp_ring_2 whose
// links fall to 0.2 x at 4 s. The drop must really be applied (bandwidth_changes.csv, on time)
// and the iterations must slow down by the factor the simulator predicts for the dropped links,
// given the run's own compute profile and the stack effects `compare` models (30% tolerance:
// the point is the change, not the model's accuracy, which tests/compare covers).
#include <catch2/catch.hpp>

#include "tests/support/shell.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

namespace {

using Clock = std::chrono::steady_clock;
using geotrain::test::sh;
const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenario = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/ddp_ring_2_bandwidth_drop.yaml";
constexpr double kDropAt_s = 4;
constexpr double kFactor = 0.2;

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

}  // namespace

TEST_CASE("emulate: a bandwidth drop mid-run is applied and slows iterations as simulated",
          "[emu][launch][root][bandwidth]") {
  if (!geotrain::test::have_root("emulate tests")) return;
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("geotrain-bwdrop-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);
  const auto t0 = Clock::now();
  const auto r = sh(kBin + " emulate " + kScenario + " --out " + dir);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(took < 60);

  // Both directions of the one pair re-rated, on time.
  const auto changes = read_csv(dir + "/bandwidth_changes.csv");
  REQUIRE(changes.size() == 2);
  double applied_s = 0;
  for (const auto& c : changes) {
    REQUIRE(c.size() == 8);
    CHECK(std::stod(c[0]) == kDropAt_s);
    REQUIRE_FALSE(c[1].empty());
    applied_s = std::max(applied_s, std::stod(c[1]));
    CHECK(std::stod(c[1]) >= kDropAt_s);
    CHECK(std::stod(c[1]) < kDropAt_s + 0.5);
    CHECK(std::stod(c[5]) == kFactor);
    CHECK(c[7] == "\"applied\"");
  }

  // Iterations from ops.csv: [first op start, last op end] over both ranks; t = 0 of the
  // schedule is the first op's start.
  std::map<int, std::pair<double, double>> span;
  double first = 1e300;
  for (const auto& row : read_csv(dir + "/ops.csv")) {
    const int it = std::stoi(row.at(2));
    const double start = std::stod(row.at(7)), end = std::stod(row.at(8));
    first = std::min(first, start);
    auto [pos, fresh] = span.try_emplace(it, start, end);
    if (!fresh) pos->second = {std::min(pos->second.first, start), std::max(pos->second.second, end)};
  }
  std::vector<double> before, after;
  for (const auto& [it, s] : span) {
    if (it == 0) continue;  // warm-up
    if (s.second <= first + kDropAt_s) before.push_back(s.second - s.first);
    else if (s.first >= first + applied_s + 0.05) after.push_back(s.second - s.first);
  }
  INFO("iterations before the drop " << before.size() << ", after " << after.size());
  REQUIRE(before.size() >= 2);
  REQUIRE(after.size() >= 3);

  const double sim_before = simulated_iteration_s(dir, "[]", dir + "/sim-before");
  const double sim_after =
      simulated_iteration_s(dir, "[{at: 0s, factor: " + std::to_string(kFactor) + "}]", dir + "/sim-after");
  const double measured_before = median(before), measured_after = median(after);
  INFO("measured " << measured_before << " -> " << measured_after << " s, simulated " << sim_before
                   << " -> " << sim_after << " s");
  CHECK(sim_after > 1.5 * sim_before);  // the scenario is one where the drop matters
  // The rise (after / before) at least 0.8x the simulated one: the drop was applied, with the
  // configured factor. Not much above either: measured rises were 1.06-1.18x the simulated one on
  // a loaded host, 1.45x on a quiet one (before the drop a quiet host computes faster, after it
  // the two directions' bulk data delay each other's ACKs in the HTB queues, which the flow
  // model does not see; emu/launch/README.md). A factor applied twice would be ~5x.
  const double rise_ratio = (measured_after / measured_before) / (sim_after / sim_before);
  CHECK(rise_ratio > 0.8);
  CHECK(rise_ratio < 2.0);
  // Absolute times only loosely: on the loaded 2-core host the emulated iterations ran 1.4-1.6x
  // the prediction after the drop (and 1.2-1.5x before); see the emu/launch README.
  CHECK(measured_after > 0.7 * sim_after);
  CHECK(measured_after < 2.0 * sim_after);
  // Printed for the record (ctest -V).
  WARN("bandwidth drop x" << kFactor << ": measured " << measured_before << " -> " << measured_after
                          << " s per iteration, simulated " << sim_before << " -> " << sim_after << " s");

  // The simulator records the same schedule for plots.
  const auto sim = sh(kBin + " simulate " + kScenario + " --iterations 1 --out " + dir + "/sim-schedule");
  REQUIRE(sim.status == 0);
  const auto sim_changes = read_csv(dir + "/sim-schedule/bandwidth_changes.csv");
  CHECK(sim_changes.size() == 2);
  for (const auto& c : sim_changes) CHECK(std::stod(c.at(0)) == kDropAt_s);

  const auto manifest = nlohmann::json::parse(std::ifstream(dir + "/manifest.json"));
  const std::string cluster = manifest["cluster"].get<std::string>();
  CHECK(sh("ip netns list | grep '^gt-" + cluster + "-' || true").out.empty());
  CHECK(sh("pgrep -af '[g]eotrain-worker.*" + dir + "' || true").out.empty());
  std::filesystem::remove_all(dir);
}
