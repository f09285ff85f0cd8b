// `geotrain emulate` of DiLoCo with a worker that leaves and rejoins (scenarios/emu/
// diloco_churn_3.yaml; label emu;launch, root): 3 LibTorch workers on shaped links, worker 2
// away in round 1, back in round 2 after loading worker 0's weights and outer momentum. The run
// completes, the loss falls, every worker ends with the same weights (the rejoined one included:
// without the state transfer its round would start from stale weights), the away worker records
// nothing in its round, and every round's bytes are the Program's. In CI it must run.
#include <catch2/catch.hpp>

#include "tests/support/shell.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "emu/launch/program_bytes.hpp"
#include "emu/launch/rank_files.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/strategies/strategy_builders.hpp"
#include "sim/strategies/strategy_registry.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace emulate_churn_root_test {

namespace {

using Clock = std::chrono::steady_clock;
const std::string kBin = GEOTRAIN_BINARY;
const std::string kScenario = std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/emu/diloco_churn_3.yaml";

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Rows of a rank's ops.csv in `step` (read as the launcher reads it).
int rows_in_step(const std::string& path, int step) {
  const auto rows = geotrain::emu::read_rank_ops(path);
  return static_cast<int>(std::count_if(rows.begin(), rows.end(),
                                        [&](const geotrain::emu::RankOpRow& r) { return r.step == step; }));
}

}  // namespace

TEST_CASE("emulate: a DiLoCo worker leaves for a round and rejoins with a peer's state",
          "[emu][launch][root][churn]") {
  if (!geotrain::test::have_root("churn emulate test")) return;
  const auto dir = (std::filesystem::temp_directory_path() /
                    ("geotrain-emulate-churn-" + std::to_string(getpid()))).string();
  std::filesystem::remove_all(dir);
  const int steps = 4;
  const auto t0 = Clock::now();
  const auto r = geotrain::test::sh(kBin + " emulate " + kScenario + " --steps 4 --linktest-advisory --out " + dir);
  const double took = std::chrono::duration<double>(Clock::now() - t0).count();
  INFO(r.out);
  REQUIRE(r.status == 0);
  const auto summary = read_json(dir + "/summary.json");
  const auto& loss = summary["loss"];
  REQUIRE(loss.size() == steps);
  for (const auto& l : loss) REQUIRE((l.is_number() && std::isfinite(l.get<double>())));
  CHECK(loss.back().get<double>() < loss.front().get<double>() - 0.05);
  // Every worker's final weights are the same bits, worker 2's included.
  std::vector<std::string> fingerprints;
  for (int rank = 0; rank < 3; ++rank)
    fingerprints.push_back(read_json(dir + "/ranks/" + std::to_string(rank) + "/worker.json")["weights_fnv1a"]);
  CHECK(fingerprints[1] == fingerprints[0]);
  CHECK(fingerprints[2] == fingerprints[0]);
  // Worker 2 ran nothing in round 1 and one more op (the state load) in round 2.
  const auto ops2 = dir + "/ranks/2/ops.csv";
  CHECK(rows_in_step(ops2, 1) == 0);
  CHECK(rows_in_step(ops2, 2) == rows_in_step(ops2, 0) + 1);
  // Bytes, round by round, as the Program says: rounds 0 and 3 a 3-member ring all-reduce,
  // round 1 a 2-member one, round 2 the 3-member one plus the state transfer.
  CHECK(summary["bytes"]["match"] == true);
  const auto s = geotrain::load_scenario(kScenario);
  const auto p = geotrain::build_program(s);
  const auto& counted = summary["bytes"]["counted_per_step"];
  REQUIRE(counted.size() == steps);
  const double full = counted[0].get<double>(), state = geotrain::diloco_state_bytes(s);
  const double params_bytes = geotrain::diloco_wire_bytes(s);
  CHECK(full == Approx(3 * 2.0 * 2 / 3 * params_bytes).epsilon(1e-3));    // 2(k-1)/k S per member
  CHECK(counted[1].get<double>() == Approx(2 * 2.0 * 1 / 2 * params_bytes).epsilon(1e-3));
  CHECK(counted[2].get<double>() == Approx(full + state));
  CHECK(counted[3].get<double>() == Approx(full));
  for (int k = 0; k < steps; ++k)
    CHECK(counted[k] == summary["bytes"]["program_per_step"][k]);
  WARN("churn emulation: " << took << " s wall, loss " << loss.dump() << ", bytes per round "
                           << counted.dump() << ", weights " << fingerprints[0]);
  const auto manifest = read_json(dir + "/manifest.json");
  CHECK(manifest["status"] == "ok");
  const std::string cluster = manifest["cluster"].get<std::string>();
  CHECK(geotrain::test::sh("ip netns list | grep '^gt-" + cluster + "-' || true").out.empty());
  std::filesystem::remove_all(dir);
}

}  // namespace emulate_churn_root_test
