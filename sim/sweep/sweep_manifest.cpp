#include "sim/sweep/sweep_manifest.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>

#include "sim/common/error.hpp"
#include "sim/common/provenance.hpp"
#include "sim/sweep/atomic_file.hpp"
#include "sim/sweep/fnv1a.hpp"

namespace geotrain::sweep {

nlohmann::ordered_json spec_json(const SweepSpec& spec, const std::string& base_text) {
  nlohmann::ordered_json j;
  j["file"] = spec.path;
  j["name"] = spec.name;
  j["base"] = spec.base_path;
  j["base_fnv1a64"] = fnv1a64_hex(base_text);
  auto& vary = j["vary"] = nlohmann::ordered_json::array();
  for (const auto& v : spec.vary) vary.push_back({{"key", v.key}, {"values", v.values}});
  auto& strategies = j["strategies"] = nlohmann::ordered_json::array();
  for (const auto& s : spec.strategies)
    strategies.push_back({{"label", s.label},
                          {"block", s.block},
                          {"statistical_efficiency", s.statistical_efficiency}});
  j["network_model"] =
      spec.network_model ? nlohmann::ordered_json(*spec.network_model) : nlohmann::ordered_json();
  j["iterations"] =
      spec.iterations ? nlohmann::ordered_json(*spec.iterations) : nlohmann::ordered_json();
  j["winner_by"] = winner_by_name(spec.winner_by);
  j["criterion"] = criterion_text(spec.winner_by);
  return j;
}

void write_sweep_json(const std::string& path, const SweepSpec& spec, const std::string& base_text,
                      const Shard& shard, const TableCounts& counts) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-sweep";
  j["version"] = 1;
  j["spec"] = spec_json(spec, base_text);
  j["shard"] = fmt::format("{}/{}", shard.index, shard.count);
  j["geotrain_version"] = GEOTRAIN_VERSION;
  j["git_sha"] = git_sha();
  // Every run uses the base scenario's seed unless a varied key changes it.
  std::string seed = "1";
  try {
    const YAML::Node base = YAML::Load(base_text);
    if (base["seed"].IsScalar()) seed = base["seed"].Scalar();
  } catch (const YAML::Exception&) {
  }
  j["seeds"] = {{"base_scenario", seed}};
  j["counts"] = {{"points", counts.points},
                 {"runs", counts.runs},
                 {"done", counts.ok},
                 {"skipped", counts.skipped}};
  write_text_atomically(path, j.dump(2) + "\n");
}

nlohmann::ordered_json read_spec_json(const std::string& sweep_json_path) {
  std::ifstream in(sweep_json_path);
  if (!in)
    throw InputError(fmt::format("{}: cannot open (expected the output folder of a geotrain sweep)",
                                 sweep_json_path));
  try {
    const auto j = nlohmann::ordered_json::parse(in);
    if (j.value("format", "") != "geotrain-sweep" || !j.contains("spec"))
      throw InputError(
          fmt::format("{}: not a sweep.json (expected format 'geotrain-sweep')", sweep_json_path));
    return j["spec"];
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: malformed JSON: {}", sweep_json_path, e.what()));
  }
}

}  // namespace geotrain::sweep
