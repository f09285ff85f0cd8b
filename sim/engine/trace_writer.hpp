#pragma once
// Chrome / Perfetto trace (JSON trace event format) of a simulated run: one process per rank
// ("rank 3 (device 17)"), thread 0 = the rank's blocking timeline, thread 1 = its nonblocking
// ops (sends, receives and collectives in flight), one complete ("X") event per op with
// microsecond timestamps. Open it in https://ui.perfetto.dev or chrome://tracing.
#include <ostream>

#include "sim/engine/simulation.hpp"

namespace geotrain::engine {

void write_trace(const Program& program, const SimulationResult& result, std::ostream& out);

}  // namespace geotrain::engine
