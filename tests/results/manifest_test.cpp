// The provenance head of manifest.json (sim/results/manifest.hpp): the same keys, in the same
// order, for every executor; an executor's own versions go before the host.
#include "sim/results/manifest.hpp"

#include <catch2/catch.hpp>

// Names here stay this file's own: the unity build compiles it with its neighbours.
namespace manifest_test {

using namespace geotrain;

namespace {
std::vector<std::string> keys(const nlohmann::ordered_json& j) {
  std::vector<std::string> out;
  for (const auto& [k, v] : j.items()) out.push_back(k);
  return out;
}
}  // namespace

TEST_CASE("manifest head keys and values", "[results]") {
  results::Provenance p{"real", "tiny", "scenarios/tiny.yaml", {"training.steps=3"}, 42,
                        nlohmann::ordered_json::object()};
  auto j = results::manifest_head(p);
  CHECK(keys(j) == std::vector<std::string>{"executor", "scenario", "scenario_path", "overrides", "seed",
                                            "git_sha", "geotrain_version", "host"});
  CHECK(j["executor"] == "real");
  CHECK(j["scenario"] == "tiny");
  CHECK(j["scenario_path"] == "scenarios/tiny.yaml");
  CHECK(j["overrides"] == nlohmann::ordered_json::array({"training.steps=3"}));
  CHECK(j["seed"] == 42);
  CHECK_FALSE(j["git_sha"].get<std::string>().empty());
  CHECK(j["geotrain_version"] == GEOTRAIN_VERSION);
  CHECK_FALSE(j["host"].get<std::string>().empty());

  p.versions["simgrid_version"] = "3.32.0";
  j = results::manifest_head(p);
  CHECK(keys(j) == std::vector<std::string>{"executor", "scenario", "scenario_path", "overrides", "seed",
                                            "git_sha", "geotrain_version", "simgrid_version", "host"});
}

TEST_CASE("build_kind names the build", "[results]") {
  const auto b = results::build_kind();
  CHECK((b == "release" || b == "debug"));
}

}  // namespace manifest_test
