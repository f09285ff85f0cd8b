// summary.json read back (sim/results/summary_reader.hpp): the executor from the format that
// summary_head writes, and errors naming the file.
#include "sim/results/summary_reader.hpp"

#include <catch2/catch.hpp>
#include <fstream>

#include "sim/common/error.hpp"
#include "tests/results/tiny_program.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace summary_reader_test {

using namespace geotrain;

TEST_CASE("summary executor comes from the format summary_head writes", "[results]") {
  CHECK(results::summary_executor({{"format", "geotrain-emu-summary"}}) == "emu");
  CHECK(results::summary_executor({{"format", "geotrain-real-summary"}}) == "real");
  CHECK(results::summary_executor({{"format", "geotrain-sim-summary"}}) == "sim");
  CHECK(results::summary_executor({{"format", "geotrain--summary"}}).empty());
  CHECK(results::summary_executor({{"format", "other"}}).empty());
  CHECK(results::summary_executor(nlohmann::json::array()).empty());
  CHECK(results::is_measuring_executor("emu"));
  CHECK(results::is_measuring_executor("real"));
  CHECK_FALSE(results::is_measuring_executor("sim"));
}

TEST_CASE("summary reader names a missing or broken summary.json", "[results]") {
  const auto dir = test::scratch_dir("summary_reader");
  CHECK_THROWS_WITH(results::read_summary(dir.string()), Catch::Contains("summary.json: cannot open"));
  std::ofstream(dir / "summary.json") << "{ not json";
  CHECK_THROWS_AS(results::read_summary(dir.string()), InputError);
  std::ofstream(dir / "summary.json") << R"({"format": "geotrain-emu-summary", "iterations": 3})";
  CHECK(results::read_summary(dir.string()).value("iterations", 0) == 3);
}

}  // namespace summary_reader_test
