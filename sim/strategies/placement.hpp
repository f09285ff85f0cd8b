#pragma once
// Which device runs which (stage, replica), from the scenario's placement section. Data-parallel
// strategies ask for 1 stage x N replicas (replica r = rank r, the ring order), pipelines for
// S x D. Kind `scheduler` is not resolved here: the scheduler library sits above the core, so
// the caller runs it and passes the Assignment to build_program.
#include "sim/program/assignment.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

// identity: DT-FM's layout (replica r, stage s on device r x stages + s); random: a permutation
// from placement.seed; file: read_assignment(placement.file). Throws InputError when the shape
// does not cover the participating devices, and for kind `scheduler`.
Assignment resolve_placement(const Scenario& scenario, int stages, int replicas);

}  // namespace geotrain
