#pragma once
// A stand-in for `geotrain-worker --profile` (tests of `geotrain profile` and `validate --plan`
// that must not depend on this machine's speed): a shell script that copies a prepared
// profile_times.json into the --out folder it is given.
#include <functional>
#include <string>

#include "sim/program/program.hpp"

namespace geotrain::test {

// Writes `dir`/times.json answering every distinct Compute op of `program` (distinct_compute_ops)
// with seconds_of(op), two samples, wall = CPU, and `dir`/fake-worker; returns the script's path.
std::string profile_worker_stand_in(const std::string& dir, const Program& program,
                                    const std::function<double(const ComputeOp&)>& seconds_of);

}  // namespace geotrain::test
