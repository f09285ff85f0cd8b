// `geotrain sweep` end to end on tests/sweep/data/small.yaml (2 x 2 x 2 points x 3 strategies):
// rows, skipped points, winners, resume, shards + merge, and bad specs writing nothing.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/shell.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace sweep_cli_test {

namespace fs = std::filesystem;
using geotrain::test::sh;

namespace {

const std::string kGeotrain = GEOTRAIN_BINARY;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("geotrain_sweep_test_" + std::to_string(::getpid()));
  TempDir() {
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

geotrain::test::ShellRun sweep(const std::string& args) {
  return sh("cd " GEOTRAIN_SOURCE_DIR " && " + kGeotrain + " sweep " + args + " --no-plot 2>&1");
}

// A sweep refused before any work: exit 2 and no output folder. Returns what it printed.
std::string refused(const std::string& args, const fs::path& out) {
  const auto r = sweep(args + " --out " + out.string());
  INFO(args << "\n" << r.out);
  CHECK(r.status == 2);
  CHECK_FALSE(fs::exists(out));
  return r.out;
}

// The message pinned for tests/sweep/bad_specs/<name>.yaml (sweep_spec_test holds the library to
// the same file), as the binary must print it.
std::string pinned(const std::string& name) {
  return slurp(fs::path(GEOTRAIN_SOURCE_DIR) / "tests/sweep/bad_specs" / (name + ".expected"));
}

}  // namespace

TEST_CASE("geotrain sweep: table, resume, shards and merge", "[sweep][cli]") {
  TempDir tmp;
  const std::string spec = "tests/sweep/data/small.yaml";
  const fs::path whole = tmp.path / "whole";
  auto r = sweep(spec + " --jobs 2 --out " + whole.string());
  INFO(r.out);
  REQUIRE(r.status == 0);
  CHECK(r.out.find("8 points, 24 runs: 20 done, 4 skipped (24 simulated now, 0 found done)") !=
        std::string::npos);
  // The size of the work is said before the work, and an estimate once the first wave is timed
  // (its figures depend on the host: only the wording is checked).
  CHECK(r.out.rfind("sweep: tests/sweep/data/small.yaml: 24 runs (8 points x 3 strategies)\n", 0) ==
        0);
  CHECK(r.out.find("sweep: estimate: ") != std::string::npos);
  CHECK(r.out.find(" more for the other 22 runs at --jobs 2 (the first 2 runs, spread over the "
                   "grid, took ") != std::string::npos);
  // Invalid points are reported with their values and the sweep went on.
  CHECK(
      r.out.find(
          "devices.count=6) strategy gpipe: strategy.replicas = 'auto': 6 devices cannot be split "
          "into 4 stages") != std::string::npos);

  const std::string csv = slurp(whole / "sweep.csv");
  const auto rows = lines_of(csv);
  REQUIRE(rows.size() == 25);
  CHECK(rows[0] ==
        "point,network.regions.intra.bandwidth,network.regions.intra.delay,devices.count,strategy,"
        "status,"
        "iteration_time_s,tokens_per_s,samples_per_s,bytes_per_step,compute_share,statistical_efficiency,time_"
        "per_token_s,"
        "winner,margin_to_runner_up,relative_to_winner,criterion,reason");
  CHECK(rows[1].rfind("0,100Mbps,1ms,4,ddp,ok,", 0) == 0);
  CHECK(rows[6].rfind("1,100Mbps,1ms,6,gpipe,skipped,", 0) == 0);
  // Exactly one winner per point.
  for (std::size_t p = 0; p < 8; ++p) {
    int winners = 0;
    for (std::size_t k = 1; k <= 3; ++k)
      winners += rows[3 * p + k].find(",true,") != std::string::npos;
    CHECK(winners == 1);
  }
  const std::string json = slurp(whole / "sweep.json");
  CHECK(json.find("\"done\": 20") != std::string::npos);
  CHECK(json.find("\"skipped\": 4") != std::string::npos);
  CHECK(json.find("\"base_scenario\": \"5\"") != std::string::npos);

  SECTION("a rerun simulates nothing and writes the same bytes") {
    r = sweep(spec + " --out " + whole.string());
    CHECK(r.out.find("(0 simulated now, 24 found done)") != std::string::npos);
    CHECK(slurp(whole / "sweep.csv") == csv);
    CHECK(slurp(whole / "sweep.json") == json);
  }
  SECTION("an interrupted run resumes where it stopped") {
    // What a kill leaves: some results missing, a half-written temporary file.
    int removed = 0;
    for (const auto& e : fs::directory_iterator(whole / "points"))
      if (removed < 5 && fs::remove(e.path())) ++removed;
    std::ofstream(whole / "points" / "0123456789abcdef.json.tmp.99") << "{\"hash\": \"01";
    r = sweep(spec + " --jobs 2 --out " + whole.string());
    CHECK(r.out.find("(5 simulated now, 19 found done)") != std::string::npos);
    CHECK(slurp(whole / "sweep.csv") == csv);
  }
  SECTION("the union of 3 shards, merged, equals the whole sweep") {
    std::string dirs;
    for (int i = 1; i <= 3; ++i) {
      const fs::path d = tmp.path / ("shard" + std::to_string(i));
      r = sweep(spec + " --jobs 2 --shard " + std::to_string(i) + "/3 --out " + d.string());
      REQUIRE(r.status == 0);
      dirs += " " + d.string();
    }
    const fs::path merged = tmp.path / "merged";
    r = sweep("--merge" + dirs + " --out " + merged.string());
    REQUIRE(r.status == 0);
    CHECK(slurp(merged / "sweep.csv") == csv);
    CHECK(slurp(merged / "sweep.json") == json);
    // Two of three shards are not the whole: the merge says what is missing and fails.
    r = sweep("--merge " + (tmp.path / "shard1").string() + " " + (tmp.path / "shard2").string() +
              " --out " + (tmp.path / "partial").string());
    CHECK(r.status == 1);
    CHECK(r.out.find("no result for point 2 strategy ddp") != std::string::npos);
  }
}

TEST_CASE("geotrain sweep: a bad spec exits 2 and writes nothing", "[sweep][cli][errors]") {
  TempDir tmp;
  const fs::path out = tmp.path / "never";
  auto r = sweep("tests/sweep/bad_specs/unknown_vary_key.yaml --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.out.rfind(
            "tests/sweep/bad_specs/unknown_vary_key.yaml:3: vary.network.regions.intra.bandwith:",
            0) == 0);
  CHECK_FALSE(fs::exists(out));
  r = sweep("tests/sweep/data/small.yaml --shard 4/3 --out " + out.string());
  CHECK(r.status == 2);
  CHECK_FALSE(fs::exists(out));
  // An output folder of another sweep is refused, not mixed.
  fs::create_directories(out);
  std::ofstream(out / "sweep.json") << R"({"format": "geotrain-sweep", "spec": {"name": "other"}})";
  r = sweep("tests/sweep/data/small.yaml --out " + out.string());
  CHECK(r.status == 2);
  CHECK(r.out.find("holds the results of sweep 'other'") != std::string::npos);
}

TEST_CASE("geotrain sweep: usage and merge errors", "[sweep][cli][errors]") {
  TempDir tmp;
  auto r = sweep("");
  CHECK(r.status == 2);
  CHECK(r.out.find("sweep: SPEC is required (expected a sweep spec YAML file, or --merge DIR...)") !=
        std::string::npos);
  r = sweep("--merge " + (tmp.path / "nothing").string());
  CHECK(r.status == 2);
  CHECK(r.out.find("nothing/sweep.json: cannot open (expected the output folder of a geotrain sweep)") !=
        std::string::npos);
  // Shards of two different sweeps do not merge.
  const fs::path a = tmp.path / "a", b = tmp.path / "b";
  REQUIRE(sweep("tests/sweep/data/other.yaml --jobs 2 --out " + a.string()).status == 0);
  REQUIRE(sweep("tests/sweep/data/small.yaml --jobs 2 --shard 1/4 --out " + b.string()).status == 0);
  r = sweep("--merge " + a.string() + " " + b.string() + " --out " + (tmp.path / "m").string());
  CHECK(r.status == 2);
  CHECK(r.out.find("b/sweep.json: spec: differs from " + a.string() +
                   "/sweep.json's (expected shards of one sweep: same spec and base scenario)") !=
        std::string::npos);
  CHECK_FALSE(fs::exists(tmp.path / "m"));
}

TEST_CASE("geotrain sweep: a sweep where every run is invalid fails", "[sweep][cli][errors]") {
  TempDir tmp;
  const auto r = sweep("tests/sweep/data/all_invalid.yaml --jobs 2 --out " + (tmp.path / "x").string());
  CHECK(r.status == 1);
  CHECK(r.out.find("sweep: skipped point 1 (network.regions.intra.delay=10ms) strategy gpipe3: "
                   "strategy.replicas = 'auto': 4 devices cannot be split into 3 stages") != std::string::npos);
  CHECK(r.out.find("geotrain: error: every run was skipped (the reasons are in") != std::string::npos);
}

TEST_CASE("geotrain sweep: a base that is not a scenario is refused up front",
          "[sweep][cli][errors]") {
  TempDir tmp;
  const fs::path out = tmp.path / "never";
  // A plain text file, and the spec naming itself: one line at `base:`, exit 2, no folder (it
  // used to skip every point and exit 1).
  CHECK(refused("tests/sweep/bad_specs/base_not_scenario.yaml", out) == pinned("base_not_scenario"));
  CHECK(refused("tests/sweep/bad_specs/base_is_spec.yaml", out) == pinned("base_is_spec"));
}

TEST_CASE("geotrain sweep: more runs than --max-runs are refused before any work",
          "[sweep][cli][errors]") {
  TempDir tmp;
  const fs::path out = tmp.path / "never";
  // 1,000,000 runs against the default bound: refused without expanding them (seconds, not the
  // gigabytes a million runs' overrides would take).
  CHECK(refused("tests/sweep/data/million_runs.yaml", out) ==
        "tests/sweep/data/million_runs.yaml: 1000000 runs (1000000 points x 1 strategy) exceed "
        "--max-runs 10000 (the default) (expected at most 10000 runs per sweep or shard; pass "
        "--max-runs 1000000 to run them all, or split the grid with --shard i/n)\n");
  CHECK(refused("tests/sweep/data/small.yaml --max-runs 23", out) ==
        "tests/sweep/data/small.yaml: 24 runs (8 points x 3 strategies) exceed --max-runs 23 "
        "(expected at most 23 runs per sweep or shard; pass --max-runs 24 to run them all, or "
        "split the grid with --shard i/n)\n");
  refused("tests/sweep/data/small.yaml --max-runs 0", out);
  refused("tests/sweep/data/small.yaml --max-runs -1", out);
  // With --shard the bound is on the shard's runs: shard 1/3 has points 0, 3, 6 (9 runs).
  CHECK(refused("tests/sweep/data/small.yaml --shard 1/3 --max-runs 8", out)
            .rfind("tests/sweep/data/small.yaml: 9 runs in shard 1/3 (3 of 8 points x 3 "
                   "strategies) exceed --max-runs 8 ",
                   0) == 0);
  const auto r = sweep("tests/sweep/data/small.yaml --shard 1/3 --max-runs 9 --jobs 2 --out " + out.string());
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK(r.out.rfind("sweep: tests/sweep/data/small.yaml: 9 runs in shard 1/3 (3 of 8 points x 3 "
                    "strategies)\n",
                    0) == 0);
}

TEST_CASE("geotrain sweep: varying a placement key the base's kind ignores is refused",
          "[sweep][cli][errors]") {
  TempDir tmp;
  const fs::path out = tmp.path / "never";
  CHECK(refused("tests/sweep/bad_specs/vary_placement_file_identity.yaml", out) ==
        pinned("vary_placement_file_identity"));
}

}  // namespace sweep_cli_test
