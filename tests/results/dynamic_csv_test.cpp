// dynamic.csv (sim/results/dynamic_csv.hpp): known bytes, in the format the emulator merges its
// workers' files into (emu/launch/result_files.cpp: rank column first, rank by rank).
#include "sim/results/dynamic_csv.hpp"

#include <catch2/catch.hpp>
#include <sstream>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace dynamic_csv_test {

using namespace geotrain;

std::shared_ptr<const std::vector<int>> list(std::vector<int> ranks) {
  return std::make_shared<const std::vector<int>>(std::move(ranks));
}

TEST_CASE("dynamic.csv: rows by rank, step and op, members joined by semicolons, 9 decimals",
          "[results]") {
  // Given in the order a simulation decides them (ranks interleaved).
  const std::vector<results::DynamicRow> rows = {
      {1, 0, 3, "gossip", 0, list({0, 1}), 0.5},
      {0, 1, 3, "gossip", 1, list({0}), 1.25},
      {0, 0, 3, "gossip", 0, list({0, 1}), 0.5},
      {2, 0, 7, "partial_reduce", 0, list({2}), 1.0 / 3},
  };
  std::ostringstream out;
  results::write_dynamic_csv(rows, out);
  CHECK(out.str() == "rank,step,op,rule,round,members,decided_s\n"
                     "0,0,3,gossip,0,0;1,0.500000000\n"
                     "0,1,3,gossip,1,0,1.250000000\n"
                     "1,0,3,gossip,0,0;1,0.500000000\n"
                     "2,0,7,partial_reduce,0,2,0.333333333\n");
  CHECK(results::dynamic_csv_entries(rows) == 6);
}

}  // namespace dynamic_csv_test
