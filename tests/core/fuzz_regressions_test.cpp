// Inputs that once crashed fuzz_scenario (tests/fuzz_regressions/, see fuzz/README.md) go through
// the same check in the regular build: each ends as a clean refusal or a built Program. Under
// scripts/sanitize.sh this also runs with ASan and UBSan.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fuzz/scenario_check.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace fuzz_regressions_test {

namespace fs = std::filesystem;

TEST_CASE("inputs that once crashed the scenario fuzzer are handled", "[scenario][fuzz]") {
  const fs::path dir = fs::path(GEOTRAIN_SOURCE_DIR) / "tests" / "fuzz_regressions";
  std::vector<fs::path> inputs;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".yaml") inputs.push_back(e.path());
  std::sort(inputs.begin(), inputs.end());
  for (const auto& path : inputs) {
    INFO(path.filename().string());
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    // The fuzz target's base folder: file names in the inputs resolve the same way.
    REQUIRE_NOTHROW(geotrain::fuzz::check_scenario_text(
        text.str(), std::string(GEOTRAIN_SOURCE_DIR) + "/scenarios/examples"));
  }
}

}  // namespace fuzz_regressions_test
