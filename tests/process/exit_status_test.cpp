#include "sim/process/exit_status.hpp"

#include <sys/wait.h>

#include <catch2/catch.hpp>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace exit_status_test {

using namespace geotrain::process;

TEST_CASE("exit status: codes and signals are decoded as the shell does", "[process]") {
  CHECK(exit_code_of(0) == 0);
  CHECK(exit_code_of(3 << 8) == 3);   // WEXITSTATUS layout: the code in the second byte
  CHECK(exit_code_of(9) == 128 + 9);  // WTERMSIG layout: the signal in the low 7 bits
}

TEST_CASE("exit status: described in words, our setup codes named", "[process]") {
  CHECK(describe_exit(0, "x") == "exit status 0");
  CHECK(describe_exit(3, "x") == "exit status 3");
  CHECK(describe_exit(124, "x") == "exit status 124 (cannot open its output files)");
  CHECK(describe_exit(125, "x") == "exit status 125 (cannot enter its network namespace)");
  CHECK(describe_exit(127, "geotrain-worker") ==
        "exit status 127 (cannot execute geotrain-worker)");
  CHECK(describe_exit(128 + 9, "x") == "killed by signal 9 (Killed)");
  CHECK(describe_exit(128 + 15, "x") == "killed by signal 15 (Terminated)");
  CHECK(describe_exit(255, "ssh") == "exit status 255");  // ssh's own failure, not a signal
}

TEST_CASE("killed_by_signal tells a signal from an exit status", "[process]") {
  CHECK(killed_by_signal(128 + 9));
  CHECK(killed_by_signal(128 + 64));
  CHECK_FALSE(killed_by_signal(0));
  CHECK_FALSE(killed_by_signal(128));
  CHECK_FALSE(killed_by_signal(255));  // ssh could not connect: blamed after a killed worker
}

}  // namespace exit_status_test
