#include "sim/results/manifest.hpp"

#include <unistd.h>

#include <array>

#include "sim/common/provenance.hpp"

namespace geotrain::results {

nlohmann::ordered_json manifest_head(const Provenance& p) {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);  // the last byte stays 0 even if the name is cut
  nlohmann::ordered_json j;
  j["executor"] = p.executor;
  j["scenario"] = p.scenario;
  j["scenario_path"] = p.scenario_path;
  j["overrides"] = p.overrides;
  j["seed"] = p.seed;
  j["git_sha"] = git_sha();
  j["geotrain_version"] = GEOTRAIN_VERSION;
  for (const auto& [k, v] : p.versions.items()) j[k] = v;
  j["host"] = host.data();
  return j;
}

std::string build_kind() {
#ifdef NDEBUG
  return "release";
#else
  return "debug";
#endif
}

}  // namespace geotrain::results
