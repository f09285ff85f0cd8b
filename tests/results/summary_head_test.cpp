// The shared parts of summary.json (sim/results/summary_head.hpp).
#include "sim/results/summary_head.hpp"

#include <catch2/catch.hpp>

#include "tests/results/tiny_program.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace summary_head_test {

using namespace geotrain;

TEST_CASE("summary head, workload figures and rank entries", "[results]") {
  const Program p = test::tiny_program();
  auto j = results::summary_head("emu", "tiny", p.strategy);
  results::add_workload_figures(j, p);
  CHECK(j.dump() == R"({"format":"geotrain-emu-summary","version":1,"scenario":"tiny","strategy":"tiny",)"
                    R"("tokens_per_iteration":256.0,"sequences_per_iteration":2.0,)"
                    R"("model_flops_per_iteration":1500000000000.0})");
  CHECK(results::rank_entry(p, 1).dump() == R"({"rank":1,"device":5})");
  CHECK_THROWS(results::rank_entry(p, 2));
}

}  // namespace summary_head_test
