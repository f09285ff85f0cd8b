#pragma once
// Where geotrain's bundled files (scenarios/, plots/) are found at run time.
#include <string>

namespace geotrain {

// An installed geotrain (cmake --install, the Debian package) keeps them in
// <prefix>/share/geotrain beside <prefix>/bin/geotrain: that folder wins when it holds
// scenarios/. A geotrain run from its build tree uses the source tree it was built from.
std::string data_dir();

// True when data_dir() is an installed share/geotrain rather than the source tree.
bool running_installed();

}  // namespace geotrain
