// Sweep specs: a good one binds as written; every file in tests/sweep/bad_specs/ is rejected
// with exactly the lines of its .expected file (checked against the base scenario too).
#include "sim/sweep/sweep_spec.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/common/error.hpp"
#include "sim/sweep/spec_check.hpp"
#include "sim/scenario/strategy_catalog.hpp"
#include "tests/support/text_files.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace sweep_spec_test {

namespace fs = std::filesystem;
using namespace geotrain;
using namespace geotrain::sweep;

using geotrain::test::read_lines;

TEST_CASE("a sweep spec binds keys, values and strategies in file order", "[sweep][spec]") {
  fs::current_path(GEOTRAIN_SOURCE_DIR);
  const SweepSpec spec = load_sweep_spec("tests/sweep/data/small.yaml");
  CHECK(spec.name == "small");
  CHECK(spec.base_path == "tests/sweep/data/base_4cpu.yaml");
  REQUIRE(spec.vary.size() == 3);
  CHECK(spec.vary[0].key == "network.regions.intra.bandwidth");
  CHECK(spec.vary[0].values == std::vector<std::string>{"100Mbps", "10Gbps"});
  CHECK(spec.vary[2].line == 6);
  REQUIRE(spec.strategies.size() == 3);
  CHECK(spec.strategies[1].label == "diloco_h4");
  CHECK(spec.strategies[1].block == "{name: diloco, inner_steps: 4}");
  CHECK(spec.iterations == 1);
  CHECK(spec.winner_by == WinnerBy::throughput);
  CHECK_NOTHROW(check_against_base(spec, read_base_text(spec)));
}

TEST_CASE("every bundled sweep spec binds against its base scenario", "[sweep][spec]") {
  fs::current_path(GEOTRAIN_SOURCE_DIR);
  int specs = 0;
  for (const auto& entry : fs::directory_iterator("scenarios/sweeps")) {
    const auto& path = entry.path();
    // wan_base.yaml is the scenario the specs vary, not a spec.
    if (path.extension() != ".yaml" || path.filename() == "wan_base.yaml") continue;
    INFO(path.string());
    const SweepSpec spec = load_sweep_spec(path.string());
    CHECK_NOTHROW(check_against_base(spec, read_base_text(spec)));
    ++specs;
  }
  CHECK(specs >= 3);
  const SweepSpec per_work = load_sweep_spec("scenarios/sweeps/wan_strategies_per_work.yaml");
  CHECK(per_work.winner_by == WinnerBy::time_per_work);
  const auto h500 = std::find_if(per_work.strategies.begin(), per_work.strategies.end(),
                                 [](const auto& s) { return s.label == "diloco_h500"; });
  REQUIRE(h500 != per_work.strategies.end());
  CHECK(h500->statistical_efficiency == 0.75);
}

TEST_CASE("time per unit of work takes per-strategy efficiencies", "[sweep][spec]") {
  const SweepSpec spec = parse_sweep_spec(
      "base: b.yaml\nvary: {devices.count: [4]}\nstrategies: {a: {name: ddp-allreduce}, b: {name: "
      "adpsgd}}\n"
      "winner_by: time_per_work\nstatistical_efficiency: {b: 0.5}\n",
      "x.yaml");
  CHECK(spec.winner_by == WinnerBy::time_per_work);
  CHECK(spec.strategies[0].statistical_efficiency == 1.0);
  CHECK(spec.strategies[1].statistical_efficiency == 0.5);
}

TEST_CASE("a varied placement key is judged with the kind the points will have",
          "[sweep][spec][errors]") {
  fs::current_path(GEOTRAIN_SOURCE_DIR);
  auto problems = [](const std::string& vary) {
    const SweepSpec spec = parse_sweep_spec(
        "base: base_4cpu.yaml\nvary: " + vary + "\nstrategies: {ddp: {name: ddp-allreduce}}\n",
        "tests/sweep/data/placement.yaml");
    std::vector<std::string> got;
    try {
      check_against_base(spec, read_base_text(spec));
    } catch (const InputError& e) {
      got = e.problems();
    }
    return got;
  };
  // Alone over the base's kind (identity, the default), the seed is inert at every point.
  const std::string inert =
      "has no effect with placement.kind 'identity', the default (expected placement.kind: "
      "random, or no placement.seed)";
  CHECK(problems("{placement.seed: [1, 2]}") ==
        std::vector<std::string>{
            "tests/sweep/data/placement.yaml:2: vary.placement.seed = '1': " + inert,
            "tests/sweep/data/placement.yaml:2: vary.placement.seed = '2': " + inert});
  // Varied together with the kind, it depends on the point: left to the points.
  CHECK(problems("{placement.kind: [identity, random], placement.seed: [1, 2]}").empty());
  CHECK(problems("{placement.kind: [random], placement.seed: [1, 2]}").empty());
}

TEST_CASE("safe names", "[sweep][spec]") {
  CHECK(is_safe_name("wan_strategies-2.v1"));
  CHECK_FALSE(is_safe_name(""));
  CHECK_FALSE(is_safe_name(".."));
  CHECK_FALSE(is_safe_name("a/b"));
  CHECK_FALSE(is_safe_name(std::string(65, 'a')));
}

namespace {

// `{strategies}` in a pinned message: every registered strategy, as the messages list them.
std::string known_strategies() {
  std::string out;
  for (const auto& name : geotrain::strategy_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

TEST_CASE("bad sweep specs are rejected with their pinned messages", "[sweep][spec][errors]") {
  fs::current_path(GEOTRAIN_SOURCE_DIR);
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator("tests/sweep/bad_specs"))
    if (entry.path().extension() == ".yaml") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  REQUIRE(paths.size() >= 10);
  for (const auto& path : paths) {
    INFO(path.string());
    fs::path expected_file = path;
    expected_file.replace_extension(".expected");
    REQUIRE(fs::exists(expected_file));
    std::vector<std::string> got;
    try {
      const SweepSpec spec = load_sweep_spec(path.string());
      check_against_base(spec, read_base_text(spec));
    } catch (const InputError& e) {
      got = e.problems();
    }
    CHECK(got == read_lines(expected_file, {{"{strategies}", known_strategies()}}));
  }
}

}  // namespace sweep_spec_test
