#pragma once
// Paths built from scenario data or flags must stay under the root they were meant for:
// `name: ../../../etc/x` must not make `simulate` write under /etc. path_under() joins a root and
// relative components, normalises the result (lexically, and through symlinks for the part that
// already exists) and throws InputError (exit 2) when it leaves the root. It creates nothing, so
// a refused path leaves nothing behind.
#include <filesystem>
#include <string>
#include <vector>

namespace geotrain {

// root / components..., checked. `what` names the input in the message (e.g. "name",
// "placement.file"). Refused: empty or absolute components, components that climb out of the
// root ("..", "a/../.."), and symlinks under the root that point outside it.
std::filesystem::path path_under(const std::filesystem::path& root,
                                 const std::vector<std::string>& components,
                                 const std::string& what);

// Whether `path` (absolute or relative to the working directory) resolves inside `root`.
bool stays_under(const std::filesystem::path& root, const std::filesystem::path& path);

}  // namespace geotrain
