#pragma once
// Where a result came from, for the manifests every executor writes.
#include <string>

namespace geotrain {

// The source tree's commit ("<sha>", "<sha>-dirty" with uncommitted changes, or "unknown");
// "release-<version>" for an installed geotrain.
std::string git_sha();

}  // namespace geotrain
