#include "sim/sweep/spec_check.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace geotrain::sweep {

namespace {

// One line of the scenario loader, `file[:line]: key[ = 'value']: message`, taken apart.
struct LoaderProblem {
  std::string key;
  std::optional<std::string> value;
  std::string message;
};

std::optional<LoaderProblem> take_apart(const std::string& line, const std::string& file) {
  if (line.rfind(file, 0) != 0) return std::nullopt;
  std::size_t i = file.size();
  if (i < line.size() && line[i] == ':') {
    std::size_t j = i + 1;
    while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i + 1) i = j;
  }
  if (line.compare(i, 2, ": ") != 0) return std::nullopt;
  i += 2;
  LoaderProblem p;
  if (line.compare(i, 6, "--set ") == 0) i += 6;
  const auto colon = line.find(": ", i), equals = line.find(" = '", i);
  if (equals != std::string::npos && (colon == std::string::npos || equals < colon)) {
    p.key = line.substr(i, equals - i);
    const auto end = line.find("': ", equals + 4);
    if (end == std::string::npos) return std::nullopt;
    p.value = line.substr(equals + 4, end - equals - 4);
    p.message = line.substr(end + 3);
  } else if (colon != std::string::npos) {
    p.key = line.substr(i, colon - i);
    p.message = line.substr(colon + 2);
  } else {
    return std::nullopt;
  }
  return p;
}

bool is_prefix_path(const std::string& prefix, const std::string& path) {
  return path == prefix || path.rfind(prefix + ".", 0) == 0;
}

std::vector<LoaderProblem> loader_problems(const SweepSpec& spec, const std::string& base_text,
                                           const std::vector<std::string>& sets) {
  std::vector<LoaderProblem> out;
  try {
    parse_scenario(base_text, spec.base_path,
                   std::filesystem::path(spec.base_path).parent_path().string(), sets);
  } catch (const InputError& e) {
    for (const auto& line : e.problems())
      if (auto p = take_apart(line, spec.base_path)) out.push_back(*p);
  }
  return out;
}

// "unknown key (known here: a, b; did you mean 'x'?)" -> "valid keys: a, b; did you mean 'x'?"
std::string valid_keys_of(const std::string& message) {
  const std::string marker = "known here: ";
  const auto at = message.find(marker);
  if (at == std::string::npos) return "";
  std::string rest = message.substr(at + marker.size());
  if (!rest.empty() && rest.back() == ')') rest.pop_back();
  return "; valid keys: " + rest;
}

// "has no effect with placement.kind 'identity' (...)" -> "placement.kind": the loader's message
// for a key that the value of another key makes inert.
std::optional<std::string> needed_key(const std::string& message) {
  const std::string marker = "has no effect with ";
  if (message.rfind(marker, 0) != 0) return std::nullopt;
  const auto end = message.find(' ', marker.size());
  if (end == std::string::npos) return std::nullopt;
  return message.substr(marker.size(), end - marker.size());
}

bool touches(const std::string& vary_key, const std::string& key) {
  return is_prefix_path(vary_key, key) || is_prefix_path(key, vary_key);
}

// `key` has no effect because of `other`. When v sets one of them and no other varied key sets
// either, every point with this value of v has the problem: a spec error. Otherwise it depends
// on the combination (placement.kind and placement.file both varied) and is left to the points.
bool fails_with_value(const SweepSpec& spec, const VaryKey& v, const std::string& key,
                      const std::string& other) {
  if (!touches(v.key, key) && !touches(v.key, other)) return false;
  for (const auto& w : spec.vary)
    if (w.key != v.key && (touches(w.key, key) || touches(w.key, other))) return false;
  return true;
}

void check_vary_key(const SweepSpec& spec, const std::string& base_text, const VaryKey& v,
                    std::vector<std::string>& errors) {
  const std::string where = fmt::format("{}:{}: vary.{}", spec.path, v.line, v.key);
  if (is_prefix_path("strategy", v.key)) {
    errors.push_back(where +
                     ": the strategy is chosen by `strategies:` (expected a key outside "
                     "strategy; list one strategy block per parameter value instead)");
    return;
  }
  for (const auto& value : v.values) {
    for (const auto& p : loader_problems(spec, base_text, {v.key + "=" + value})) {
      if (const auto other = needed_key(p.message)) {
        if (fails_with_value(spec, v, p.key, *other))
          errors.push_back(fmt::format("{} = '{}': {}{}", where, value,
                                       p.key == v.key ? "" : p.key + " ", p.message));
        continue;
      }
      if (is_prefix_path(p.key, v.key) && p.message.rfind("unknown key", 0) == 0) {
        const auto dot = p.key.rfind('.');
        errors.push_back(fmt::format(
            "{}: '{}' is not a key of {} (expected a scenario key path as --set takes it{})", where,
            dot == std::string::npos ? p.key : p.key.substr(dot + 1),
            dot == std::string::npos ? "a scenario" : p.key.substr(0, dot),
            valid_keys_of(p.message)));
        return;  // the same for every value
      }
      // A value that does not bind (bad unit, wrong type) fails at every point; checks across
      // fields (global batch vs devices) depend on the combination and are left to the points.
      const bool binding = p.value && is_prefix_path(v.key, p.key);
      const bool not_a_map =
          !p.value && p.key == v.key && p.message.find("not a mapping") != std::string::npos;
      if (binding || not_a_map)
        errors.push_back(fmt::format("{} = '{}': {}", where, p.value.value_or(value), p.message));
    }
  }
}

void check_strategy(const SweepSpec& spec, const std::string& base_text, const StrategyEntry& s,
                    std::vector<std::string>& errors) {
  // `replicas: auto` is resolved per point; any count binds here.
  YAML::Node block = YAML::Load(s.block);
  if (block["replicas"].IsScalar() && block["replicas"].Scalar() == "auto") block["replicas"] = 1;
  YAML::Emitter flow;
  flow << YAML::Flow << block;
  for (const auto& p :
       loader_problems(spec, base_text, {std::string("strategy=") + flow.c_str()})) {
    if (!is_prefix_path("strategy", p.key)) continue;
    // Unknown names and values that do not bind are the block's own fault; shape checks
    // (stages x replicas vs devices) depend on the point and are left to it.
    if (p.message.rfind("unknown", 0) != 0 && !p.value) continue;
    const std::string key = "strategies." + s.label + p.key.substr(std::string("strategy").size());
    errors.push_back(
        p.value ? fmt::format("{}:{}: {} = '{}': {}", spec.path, s.line, key, *p.value, p.message)
                : fmt::format("{}:{}: {}: {}", spec.path, s.line, key, p.message));
  }
}

}  // namespace

std::string read_base_text(const SweepSpec& spec) {
  std::ifstream in(spec.base_path, std::ios::binary);
  if (!in)
    throw InputError(fmt::format(
        "{}:{}: base = '{}': cannot open the base scenario {}: {} (expected a "
        "scenario path relative to the spec's folder)",
        spec.path, spec.base_line, spec.base_as_written, spec.base_path, std::strerror(errno)));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void check_base(const SweepSpec& spec, const std::string& base_text) {
  std::vector<std::string> problems;
  try {
    parse_scenario(base_text, spec.base_path,
                   std::filesystem::path(spec.base_path).parent_path().string());
    return;
  } catch (const InputError& e) {
    problems = e.problems();
  }
  // One line: the spec's `base:` is what the user has to fix; the base's own first problem says
  // why, and `geotrain check` lists the rest.
  throw InputError(fmt::format(
      "{}:{}: base = '{}': not a scenario{}: {} (expected a scenario file; `geotrain check {}` "
      "lists its problems)",
      spec.path, spec.base_line, spec.base_as_written,
      problems.size() > 1 ? fmt::format(" (1 of {} problems)", problems.size()) : "",
      problems.empty() ? "unreadable" : problems.front(), spec.base_path));
}

void check_against_base(const SweepSpec& spec, const std::string& base_text) {
  check_base(spec, base_text);
  std::vector<std::string> errors;
  for (const auto& v : spec.vary) check_vary_key(spec, base_text, v, errors);
  for (const auto& s : spec.strategies) check_strategy(spec, base_text, s, errors);
  if (!errors.empty()) throw InputError(errors);
}

}  // namespace geotrain::sweep
