// iterations.csv (sim/results/iterations_csv.hpp): known bytes.
#include "sim/results/iterations_csv.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace iterations_csv_test {

using namespace geotrain;

TEST_CASE("iterations.csv: nanosecond times, empty loss and bytes where there are none", "[results]") {
  std::ostringstream out;
  results::write_iterations_csv({{0, 0.5, 2.25, 512, 8192}, {1, 0.25, std::nan(""), 1024.5, -1}}, out);
  CHECK(out.str() == "step,time_s,loss,tokens_per_s,bytes\n"
                     "0,0.500000000,2.25,512,8192\n"
                     "1,0.250000000,,1024.5,\n");
}

}  // namespace iterations_csv_test
