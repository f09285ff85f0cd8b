#pragma once
// The provenance part of manifest.json, the same for every executor:
//   executor, scenario, scenario_path, overrides, seed, git_sha, geotrain_version,
//   <the executor's own versions, e.g. simgrid_version>, host
// The executor appends what only it knows (network model, cluster, exit status, wall time...).
// Not byte-identical across runs of the same scenario: git sha, host and wall times differ.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace geotrain::results {

struct Provenance {
  std::string executor;                // sim | emu | real
  std::string scenario;                // the scenario's name
  std::string scenario_path;           // the file as given on the command line
  std::vector<std::string> overrides;  // --set key=value as given
  std::uint64_t seed = 1;
  // Versions of what the executor runs on, listed after geotrain_version ({} for none).
  nlohmann::ordered_json versions = nlohmann::ordered_json::object();
};

nlohmann::ordered_json manifest_head(const Provenance& p);

// "release" when assertions are compiled out (NDEBUG), else "debug".
std::string build_kind();

}  // namespace geotrain::results
