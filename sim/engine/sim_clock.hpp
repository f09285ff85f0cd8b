#pragma once
// The simulated clock, as the actors read it.
#include <simgrid/s4u/Engine.hpp>

namespace geotrain::engine {

// Simulated seconds since the simulation began.
inline double now() { return simgrid::s4u::Engine::get_clock(); }

}  // namespace geotrain::engine
