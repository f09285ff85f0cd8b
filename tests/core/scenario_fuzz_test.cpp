// Random byte mutations of the bundled scenarios must never crash the loader: every outcome is
// either a Scenario or a ScenarioError with at least one message line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace scenario_fuzz_test {

namespace fs = std::filesystem;
using namespace geotrain;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One of: flip a byte, insert a random/structural byte, delete a byte, duplicate a line.
std::string mutate(std::string text, std::mt19937_64& rng) {
  static const std::string structural = ":{}[],-#\n '\"&*!|>%@`0123456789.e";
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !text.empty(); ++e) {
    const std::size_t at = rng() % text.size();
    switch (rng() % 5) {
      case 0: text[at] = static_cast<char>(rng() % 256); break;
      case 1: text.insert(at, 1, structural[rng() % structural.size()]); break;
      case 2: text.erase(at, 1); break;
      case 3: text.insert(at, 1, static_cast<char>(rng() % 256)); break;
      default: {
        const auto start = text.rfind('\n', at);
        const auto end = text.find('\n', at);
        const auto from = start == std::string::npos ? 0 : start + 1;
        text.insert(from, text.substr(from, (end == std::string::npos ? text.size() : end) - from) + "\n");
      }
    }
  }
  return text;
}

}  // namespace

TEST_CASE("mutated scenarios give clean errors, never crashes", "[scenario][fuzz]") {
  std::vector<fs::path> sources;
  for (const char* dir : {"/scenarios/paper", "/scenarios/examples"})
    for (const auto& e : fs::directory_iterator(std::string(GEOTRAIN_SOURCE_DIR) + dir))
      if (e.path().extension() == ".yaml") sources.push_back(e.path());
  std::sort(sources.begin(), sources.end());
  REQUIRE(sources.size() >= 5);

  std::mt19937_64 rng(20261122);
  int accepted = 0, rejected = 0;
  for (int i = 0; i < 4000; ++i) {
    const fs::path& src = sources[static_cast<std::size_t>(i) % sources.size()];
    const std::string text = mutate(read_text(src), rng);
    try {
      parse_scenario(text, "fuzz.yaml", src.parent_path().string());
      ++accepted;
    } catch (const ScenarioError& e) {
      ++rejected;
      REQUIRE_FALSE(e.problems().empty());
      for (const auto& line : e.problems()) {
        INFO(line);
        REQUIRE(line.rfind("fuzz.yaml", 0) == 0);  // every line names the file
        REQUIRE(line.find('\n') == std::string::npos);
      }
    } catch (const std::exception& e) {
      INFO("input:\n" << text);
      FAIL("unexpected exception: " << e.what());
    }
  }
  CHECK(rejected > 1000);
  CHECK(accepted > 0);
}

}  // namespace scenario_fuzz_test
