// Every file in tests/bad_scenarios/ must be rejected with exactly the lines in its .expected
// file: the message a user sees is part of the interface.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdlib.h>

#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/strategy_catalog.hpp"
#include "tests/support/text_files.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace bad_scenarios_test {

namespace fs = std::filesystem;
using namespace geotrain;

using geotrain::test::read_lines;

namespace {

// `{strategies}` in a pinned message: every registered strategy, as the messages list them.
std::string known_strategies() {
  std::string out;
  for (const auto& name : geotrain::strategy_names()) out += (out.empty() ? "" : ", ") + name;
  return out;
}

}  // namespace

TEST_CASE("bad scenarios are rejected with their pinned messages", "[scenario][errors]") {
  // Paths in messages are relative to the repository, as a user running from there sees them.
  fs::current_path(GEOTRAIN_SOURCE_DIR);
  // A fixed memory budget, so devices_exceed_memory.expected reads the same on every machine.
  ::setenv("GEOTRAIN_MEMORY_LIMIT", "16GiB", 1);
  int files = 0;
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator("tests/bad_scenarios"))
    if (entry.path().extension() == ".yaml") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  for (const auto& path : paths) {
    ++files;
    fs::path expected_file = path;
    expected_file.replace_extension(".expected");
    INFO(path.string());
    REQUIRE(fs::exists(expected_file));
    const auto expected = read_lines(expected_file, {{"{strategies}", known_strategies()}});
    REQUIRE_FALSE(expected.empty());
    try {
      load_scenario(path.string());
      FAIL("accepted a bad scenario");
    } catch (const ScenarioError& e) {
      CHECK(e.problems() == expected);
    }
  }
  CHECK(files >= 30);
  ::unsetenv("GEOTRAIN_MEMORY_LIMIT");
}

TEST_CASE("a missing scenario file names the file", "[scenario][errors]") {
  try {
    load_scenario("/nonexistent/dir/scenario.yaml");
    FAIL("accepted a missing file");
  } catch (const ScenarioError& e) {
    CHECK(std::string(e.what()) ==
          "/nonexistent/dir/scenario.yaml: cannot open scenario file: No such file or directory");
  }
}

TEST_CASE("a device or a folder given as the scenario is refused before reading", "[scenario][errors]") {
  for (const std::string path : {"/dev/zero", "/tmp"}) {
    INFO(path);
    try {
      load_scenario(path);
      FAIL("accepted " + path);
    } catch (const ScenarioError& e) {
      CHECK(std::string(e.what()) == path + ": not a regular file (expected a scenario YAML file)");
    }
  }
}

}  // namespace bad_scenarios_test
