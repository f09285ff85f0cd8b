// ops.csv (sim/results/ops_csv_writer.hpp): known bytes for a hand-built Program, in both time
// formats (the simulator's exact times, the emulator's measured ones).
#include "sim/results/ops_csv_writer.hpp"

#include <catch2/catch.hpp>
#include <sstream>

#include "tests/results/tiny_program.hpp"

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace ops_csv_writer_test {

using namespace geotrain;
using results::OpRow;

namespace {
const char* kHeader =
    "rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,idle_s,bytes_sent,peer,group\n";
}

TEST_CASE("ops.csv rows with exact times, idle and bytes", "[results]") {
  const Program p = test::tiny_program();
  std::ostringstream out;
  results::OpsCsvWriter w(out, p, results::TimeFormat::shortest);
  w.add(OpRow{0, 0, 0, 0.0, 0.5, 0.0, 0.0});
  w.add(OpRow{0, 0, 1, 0.5, 1.25, 0.125, 4096.0});
  w.add(OpRow{1, 2, 2, 1.25, 2.0, 0.0, 1536.0});
  CHECK(out.str() == std::string(kHeader) +
                         "0,3,0,0,compute,fwd,0,0,0.5,0.5,0,0,,\n"
                         "0,3,0,1,send,\"say \"\"hi\"\", x\",1,0.5,1.25,0.75,0.125,4096,1,\n"
                         "1,5,2,2,collective,allreduce,0,1.25,2,0.75,0,1536,,\"dp, world\"\n");
}

TEST_CASE("ops.csv rows with measured times leave idle and uncounted bytes empty", "[results]") {
  const Program p = test::tiny_program();
  std::ostringstream out;
  results::OpsCsvWriter w(out, p, results::TimeFormat::nanoseconds);
  w.add(OpRow{1, 0, 1, 0.5, 1.25, std::nullopt, 4096.0});
  w.add(OpRow{1, 0, 2, 1.25, 2.000000001, std::nullopt, std::nullopt});
  CHECK(out.str() == std::string(kHeader) +
                         "1,5,0,1,recv,recv,0,0.500000000,1.250000000,0.750000000,,4096,0,\n"
                         "1,5,0,2,collective,allreduce,0,1.250000000,2.000000001,0.750000001,,,,\"dp, world\"\n");
}

TEST_CASE("ops.csv refuses a row naming an op the Program does not have", "[results]") {
  const Program p = test::tiny_program();
  std::ostringstream out;
  results::OpsCsvWriter w(out, p, results::TimeFormat::shortest);
  CHECK_THROWS(w.add(OpRow{0, 0, 7, 0, 1, std::nullopt, std::nullopt}));
  CHECK_THROWS(w.add(OpRow{2, 0, 0, 0, 1, std::nullopt, std::nullopt}));
}

}  // namespace ops_csv_writer_test
