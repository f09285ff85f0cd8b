// Gloo process groups (CPU tensors). Compiled when the Gloo headers ProcessGroupGloo.hpp needs
// are found (Debian: libgloo-dev; emu/worker/CMakeLists.txt); no_gloo.cpp otherwise.
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "emu/worker/comm_group.hpp"

namespace geotrain {

bool gloo_built() { return true; }

CommGroupPtr make_gloo_group(const c10::intrusive_ptr<c10d::Store>& store, int rank, int size,
                             const CommGroupOptions& o) {
  auto opts = c10d::ProcessGroupGloo::Options::create(o.timeout);
  opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname(o.bind_addr));
  opts->threads = 1;  // one Gloo thread per group: collectives here are serialised anyway
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, size, opts);
}

}  // namespace geotrain
