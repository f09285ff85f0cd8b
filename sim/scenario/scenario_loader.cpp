#include "sim/scenario/scenario_loader.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/text_rules.hpp"
#include "sim/scenario/memory_estimate.hpp"
#include "sim/scenario/sections.hpp"
#include "sim/scenario/text_check.hpp"
#include "sim/scenario/strategy_catalog.hpp"

namespace geotrain {

namespace {

// --set a.b.c=value: walks (and creates) maps, then replaces the leaf with the parsed value.
void apply_override(YAML::Node& root, const std::string& text, Diagnostics& diag) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) {
    diag.error(0, "--set " + text, "expected key.path=value");
    return;
  }
  const std::string path = text.substr(0, eq);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    diag.error(0, "--set " + path, text.substr(eq + 1), "not a YAML value: " + e.msg);
    return;
  }
  std::vector<std::string> keys;
  std::stringstream in(path);
  for (std::string key; std::getline(in, key, '.');) keys.push_back(key);
  // Nodes are handles: walking with reset() keeps a reference into the document.
  YAML::Node node;
  node.reset(root);
  for (std::size_t i = 0; i + 1 < keys.size(); ++i) {
    if (node[keys[i]].IsDefined() && !node[keys[i]].IsMap() && !node[keys[i]].IsNull()) {
      diag.error(0, "--set " + path, fmt::format("{} is not a mapping", keys[i]));
      return;
    }
    YAML::Node next = node[keys[i]];
    node.reset(next);
  }
  node[keys.back()] = value;
}

std::string read_file(const std::string& path) {
  // A device never ends (/dev/zero would take all memory); a directory reads as empty. Pipes
  // stay allowed: `geotrain check <(generate)` is a fair use.
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec) || fs::is_character_file(path, ec) || fs::is_block_file(path, ec))
    throw ScenarioError(fmt::format("{}: not a regular file (expected a scenario YAML file)", path));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw ScenarioError(fmt::format("{}: cannot open scenario file: {}", path, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void cross_check(const Scenario& s, Diagnostics& diag, int strategy_line) {
  if (const StrategyDecl* decl = find_strategy(s.strategy.name); decl && decl->check)
    decl->check(s, diag, strategy_line);
  sections::check_churn(s, diag);
  const TrainingSpec& t = s.training;
  if (t.micro_batch > 0 && t.micro_batch > t.global_batch)
    diag.error(0, "training.micro_batch",
               fmt::format("{} sequences is larger than the global batch of {}", t.micro_batch,
                           t.global_batch));
}

}  // namespace

Scenario parse_scenario(const std::string& text, const std::string& display_name,
                        const std::string& base_dir, const std::vector<std::string>& overrides) {
  Diagnostics diag(display_name);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ScenarioError(
        fmt::format("{}:{}: malformed YAML: {}", display_name, e.mark.line + 1, printable(e.msg)));
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("{}: malformed YAML: {}", display_name, printable(e.msg)));
  }
  if (!root.IsDefined() || root.IsNull())
    throw ScenarioError(fmt::format("{}: the file is empty (expected a scenario with devices, "
                                    "network, model and strategy)",
                                    display_name));
  if (!root.IsMap())
    throw ScenarioError(fmt::format("{}:{}: expected a mapping of sections at the top level",
                                    display_name, line_of(root)));
  for (const auto& o : overrides) apply_override(root, o, diag);
  diag.throw_if_errors();
  // Control and bidi characters anywhere are refused before binding, so no later message,
  // log line or result file carries one.
  check_scenario_text(root, diag);
  diag.throw_if_errors();

  Scenario s;
  s.path = display_name;
  // Without `name:` the file's stem names the results directory, made into a valid name
  // (the file name is the user's choice on the command line, not the scenario's).
  s.name = identifier_from(std::filesystem::path(display_name).stem().string());
  sections::Context ctx{diag, base_dir};
  YamlSection top(diag, root, "");
  if (auto name = top.text("name")) {
    // The name becomes a directory under results/ and, through the cluster name, part of
    // namespace names: nothing in it may climb out of a directory or need quoting.
    if (auto problem = identifier_problem(*name))
      diag.error(top.line_of("name"), "name", *name, *problem);
    else
      s.name = *name;
  }
  if (auto d = top.text("description")) s.description = *d;
  if (auto seed = top.integer("seed", 0, INT64_MAX)) s.seed = static_cast<std::uint64_t>(*seed);

  const auto regions = sections::parse_devices(ctx, top.child("devices"), s);
  // Before the network is built: a device count whose tables cannot fit is refused here,
  // with the estimate, instead of by the OOM killer.
  const std::size_t problems_before = diag.lines().size();
  sections::check_memory(ctx, root, regions, static_cast<std::int64_t>(s.devices.size()));
  if (diag.lines().size() > problems_before) diag.throw_if_errors();
  sections::parse_network(ctx, top.child("network"), regions, s);
  sections::parse_model(ctx, top.child("model"), s);
  sections::parse_emulation(ctx, top.child("emulation"), s);
  sections::parse_training(ctx, top.child("training"), s);
  YamlSection strategy = top.child("strategy");
  sections::parse_strategy(ctx, strategy, s);
  sections::parse_placement(ctx, top.child("placement"), s);
  sections::parse_scheduler(ctx, top.child("scheduler"), s);
  sections::parse_simulation(ctx, top.child("simulation"), s);
  sections::parse_stragglers(ctx, top.child("stragglers"), s);
  sections::parse_churn(ctx, top.raw("churn"), s);
  top.finish();
  // Cross-field checks only make sense once every section bound cleanly.
  if (diag.ok()) cross_check(s, diag, strategy.line());
  diag.throw_if_errors();
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = read_file(path);
  const std::string base = std::filesystem::path(path).parent_path().string();
  return parse_scenario(text, path, base, overrides);
}

}  // namespace geotrain
