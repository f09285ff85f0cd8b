#pragma once
// A two-rank Program built by hand for the writer tests: small enough that every byte the
// writers produce can be written out in the test.
#include <filesystem>
#include <string>

#include "sim/program/program.hpp"

namespace geotrain::test {

// Rank 0 on device 3: compute "fwd", nonblocking send to rank 1 labelled `say "hi", x` (a label
// that needs CSV quoting and JSON escaping), all-reduce in group 0 "dp, world".
// Rank 1 on device 5: compute "fwd", blocking receive from rank 0, the same all-reduce.
Program tiny_program();

// An empty folder of this test process (pid in the name: parallel ctest runs do not share it).
std::filesystem::path scratch_dir(const std::string& name);

}  // namespace geotrain::test
