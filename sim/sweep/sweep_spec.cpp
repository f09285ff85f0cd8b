#include "sim/sweep/sweep_spec.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/scenario/diagnostics.hpp"
#include "sim/scenario/yaml_section.hpp"

namespace geotrain::sweep {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTopKeys{"base",
                                        "vary",
                                        "strategies",
                                        "network_model",
                                        "iterations",
                                        "winner_by",
                                        "statistical_efficiency"};

std::string flow_text(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

void parse_vary(Diagnostics& diag, const YAML::Node& node, int section_line, SweepSpec& spec) {
  if (!node.IsDefined() || node.IsNull()) {
    diag.error(section_line, "vary",
               "missing (expected a mapping of scenario key paths to non-empty lists of values)");
    return;
  }
  if (!node.IsMap()) {
    diag.error(line_of(node), "vary",
               "expected a mapping of scenario key paths to lists of values");
    return;
  }
  for (const auto& item : node) {
    const std::string key = scalar_text(item.first);
    const int line = line_of(item.first);
    const std::string path = "vary." + key;
    if (key.empty() || key.front() == '.' || key.back() == '.' ||
        key.find("..") != std::string::npos) {
      diag.error(line, path,
                 "not a scenario key path (expected e.g. 'network.regions.intra.delay')");
      continue;
    }
    if (!item.second.IsSequence() || item.second.size() == 0) {
      diag.error(line, path, "expected a non-empty list of values (e.g. [10Mbps, 1Gbps])");
      continue;
    }
    VaryKey v{key, {}, line};
    for (const auto& value : item.second)
      v.values.push_back(value.IsScalar() ? value.Scalar() : flow_text(value));
    for (const auto& other : spec.vary)
      if (other.key == key) diag.error(line, path, "given twice (each key may be varied once)");
    spec.vary.push_back(std::move(v));
  }
}

void parse_strategies(Diagnostics& diag, const YAML::Node& node, int section_line,
                      SweepSpec& spec) {
  if (!node.IsDefined() || node.IsNull() || (node.IsMap() && node.size() == 0)) {
    diag.error(section_line, "strategies",
               "missing (expected a mapping of labels to strategy blocks, e.g. ddp: {name: "
               "ddp-allreduce})");
    return;
  }
  if (!node.IsMap()) {
    diag.error(line_of(node), "strategies", "expected a mapping of labels to strategy blocks");
    return;
  }
  for (const auto& item : node) {
    const std::string label = scalar_text(item.first);
    const int line = line_of(item.first);
    if (!is_safe_name(label)) {
      diag.error(line, "strategies." + label,
                 "not a usable label (expected 1-64 characters of A-Z a-z 0-9 . _ -)");
      continue;
    }
    if (!item.second.IsMap() || !item.second["name"].IsDefined()) {
      diag.error(line, "strategies." + label,
                 "expected a strategy block with a name (e.g. {name: diloco, inner_steps: 50})");
      continue;
    }
    for (const auto& other : spec.strategies)
      if (other.label == label) diag.error(line, "strategies." + label, "given twice");
    spec.strategies.push_back({label, flow_text(item.second), 1.0, line});
  }
}

void parse_efficiency(Diagnostics& diag, YamlSection& top, SweepSpec& spec) {
  YamlSection eff = top.child("statistical_efficiency");
  if (!eff.present()) return;
  std::vector<std::string> labels;
  for (auto& s : spec.strategies) {
    labels.push_back(s.label);
    if (auto f = eff.number(s.label, 1e-6, 1e6)) s.statistical_efficiency = *f;
  }
  eff.finish();
  if (spec.winner_by != WinnerBy::time_per_work)
    diag.error(eff.line(), "statistical_efficiency",
               "only used with winner_by: time_per_work (expected winner_by: time_per_work, or no "
               "statistical_efficiency)");
}

}  // namespace

bool is_safe_name(const std::string& name) {
  static const std::regex safe("[A-Za-z0-9._-]{1,64}");
  return std::regex_match(name, safe) && name != "." && name != "..";
}

std::string winner_by_name(WinnerBy w) {
  return w == WinnerBy::throughput ? "throughput" : "time_per_work";
}

std::string criterion_text(WinnerBy w) {
  return w == WinnerBy::throughput
             ? "highest throughput (tokens/s)"
             : "lowest time per unit of work (s per token / statistical efficiency)";
}

SweepSpec parse_sweep_spec(const std::string& text, const std::string& display_name) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw InputError(
        fmt::format("{}:{}: malformed YAML: {}", display_name, e.mark.line + 1, e.msg));
  }
  if (!root.IsMap())
    throw InputError(fmt::format("{}: expected a sweep spec mapping with keys {}", display_name,
                                 fmt::join(kTopKeys, ", ")));
  Diagnostics diag(display_name);
  SweepSpec spec;
  spec.path = display_name;
  spec.name = fs::path(display_name).stem().string();
  if (!is_safe_name(spec.name))
    diag.error(
        0, "(file name)", spec.name,
        "not usable as a results folder name (expected 1-64 characters of A-Z a-z 0-9 . _ -)");
  YamlSection top(diag, root, "");
  spec.base_line = top.line_of("base");
  if (auto base = top.text("base", true)) spec.base_as_written = *base;
  if (!spec.base_as_written.empty())
    spec.base_path =
        (fs::path(display_name).parent_path() / spec.base_as_written).lexically_normal().string();
  parse_vary(diag, top.raw("vary"), top.line(), spec);
  parse_strategies(diag, top.raw("strategies"), top.line(), spec);
  spec.network_model = top.choice("network_model", {"flow", "tcp"}, "network model");
  if (auto it = top.integer("iterations", 1, 1000000)) spec.iterations = static_cast<int>(*it);
  if (auto w = top.choice("winner_by", {"throughput", "time_per_work"}, "criterion"))
    spec.winner_by = *w == "throughput" ? WinnerBy::throughput : WinnerBy::time_per_work;
  parse_efficiency(diag, top, spec);
  top.finish();
  diag.throw_if_errors();
  return spec;
}

SweepSpec load_sweep_spec(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(fmt::format("{}: cannot open sweep spec: {}", path, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_sweep_spec(buffer.str(), path);
}

}  // namespace geotrain::sweep
