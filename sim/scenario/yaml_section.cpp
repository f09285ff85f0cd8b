#include "sim/scenario/yaml_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "sim/common/did_you_mean.hpp"
#include "sim/common/units.hpp"

namespace geotrain {

std::string scalar_text(const YAML::Node& node) {
  return node.IsDefined() && node.IsScalar() ? node.Scalar() : std::string();
}

int line_of(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

namespace {
const char* node_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Null:
      return "empty";
    default:
      return "a value";
  }
}
}  // namespace

YamlSection::YamlSection(Diagnostics& diag, const YAML::Node& node, std::string path)
    : diag_(diag), node_(node), path_(std::move(path)) {
  if (!node.IsDefined() || node.IsNull()) return;
  given_ = true;
  line_ = geotrain::line_of(node);
  if (!node.IsMap()) {
    diag_.error(line_, path_.empty() ? "(top level)" : path_,
                fmt::format("expected a mapping of keys, found {}", node_kind(node)));
    return;
  }
  present_ = true;
  std::set<std::string> seen;
  for (const auto& item : node) {
    const std::string key = scalar_text(item.first);
    if (!seen.insert(key).second)
      diag_.error(geotrain::line_of(item.first), key_path(key), "duplicate key (each key may appear once)");
  }
}

std::string YamlSection::key_path(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

bool YamlSection::has(const std::string& key) const {
  return present_ && node_[key].IsDefined() && !node_[key].IsNull();
}

int YamlSection::line_of(const std::string& key) const {
  return has(key) ? geotrain::line_of(node_[key]) : line_;
}

void YamlSection::missing(const std::string& key) {
  diag_.error(line_, key_path(key), "missing (this key is required)");
}

YAML::Node YamlSection::raw(const std::string& key) {
  read_.insert(key);
  return present_ ? node_[key] : YAML::Node();
}

std::optional<std::string> YamlSection::scalar(const std::string& key, bool required) {
  read_.insert(key);
  if (!has(key)) {
    if (required) missing(key);
    return std::nullopt;
  }
  const YAML::Node value = node_[key];
  if (!value.IsScalar()) {
    diag_.error(geotrain::line_of(value), key_path(key),
                fmt::format("expected a single value, found {}", node_kind(value)));
    return std::nullopt;
  }
  return value.Scalar();
}

std::optional<double> YamlSection::number(const std::string& key, double min, double max,
                                          bool required) {
  auto text = scalar(key, required);
  if (!text) return std::nullopt;
  double v = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) {
    diag_.error(line_of(key), key_path(key), *text, "expected a plain number (no unit)");
    return std::nullopt;
  }
  if (v < min || v > max) {
    diag_.error(line_of(key), key_path(key), *text,
                fmt::format("out of range (expected {} ... {})", min, max));
    return std::nullopt;
  }
  return v;
}

std::optional<std::int64_t> YamlSection::integer(const std::string& key, std::int64_t min,
                                                 std::int64_t max, bool required) {
  auto text = scalar(key, required);
  if (!text) return std::nullopt;
  std::int64_t v = 0;
  const char* end = text->data() + text->size();
  auto [ptr, ec] = std::from_chars(text->data(), end, v);
  const bool too_large = ec == std::errc::result_out_of_range && ptr == end;
  if ((ec != std::errc() || ptr != end) && !too_large) {
    diag_.error(line_of(key), key_path(key), *text, "expected a whole number");
    return std::nullopt;
  }
  if (too_large || v < min || v > max) {
    diag_.error(line_of(key), key_path(key), *text,
                fmt::format("out of range (expected {} ... {})", min, max));
    return std::nullopt;
  }
  return v;
}

std::optional<bool> YamlSection::boolean(const std::string& key) {
  auto text = scalar(key, false);
  if (!text) return std::nullopt;
  if (*text == "true" || *text == "yes" || *text == "on") return true;
  if (*text == "false" || *text == "no" || *text == "off") return false;
  diag_.error(line_of(key), key_path(key), *text, "expected true or false");
  return std::nullopt;
}

std::optional<std::string> YamlSection::text(const std::string& key, bool required) {
  return scalar(key, required);
}

std::optional<std::string> YamlSection::choice(const std::string& key,
                                               const std::vector<std::string>& choices,
                                               const std::string& what, bool required) {
  auto text = scalar(key, required);
  if (!text) return std::nullopt;
  for (const auto& c : choices)
    if (c == *text) return text;
  std::string message = fmt::format("unknown {} (known: {}", what, join_names(choices));
  if (auto close = closest_name(*text, choices)) message += fmt::format("; did you mean '{}'?", *close);
  message += ")";
  diag_.error(line_of(key), key_path(key), *text, message);
  return std::nullopt;
}

namespace {
using Parser = units::Parsed (*)(std::string_view);
}

static std::optional<double> unit_value(YamlSection& s, const std::string& key,
                                        std::optional<std::string> text, Parser parse,
                                        const ValueRange& range) {
  if (!text) return std::nullopt;
  const auto parsed = parse(*text);
  if (!parsed.ok()) {
    s.diag().error(s.line_of(key), s.key_path(key), *text, parsed.error);
    return std::nullopt;
  }
  if (auto problem = range_problem(range, parsed.value)) {
    s.diag().error(s.line_of(key), s.key_path(key), *text, *problem);
    return std::nullopt;
  }
  return parsed.value;
}

std::optional<double> YamlSection::duration_s(const std::string& key, const ValueRange& range,
                                              bool required) {
  return unit_value(*this, key, scalar(key, required), units::parse_duration_s, range);
}
std::optional<double> YamlSection::bandwidth_Bps(const std::string& key, bool required) {
  return unit_value(*this, key, scalar(key, required), units::parse_bandwidth_Bps,
                    ranges::kBandwidth);
}
std::optional<double> YamlSection::bandwidth_Bps(const std::string& key, const ValueRange& range) {
  return unit_value(*this, key, scalar(key, false), units::parse_bandwidth_Bps, range);
}
std::optional<double> YamlSection::bytes(const std::string& key, const ValueRange& range,
                                         bool required) {
  return unit_value(*this, key, scalar(key, required), units::parse_bytes, range);
}
std::optional<double> YamlSection::flops(const std::string& key, bool required) {
  return unit_value(*this, key, scalar(key, required), units::parse_flops, ranges::kDeviceFlops);
}

YamlSection YamlSection::child(const std::string& key) {
  read_.insert(key);
  return YamlSection(diag_, present_ ? node_[key] : YAML::Node(), key_path(key));
}

void YamlSection::finish(const std::vector<std::string>& extra_known) {
  if (!present_) return;
  std::vector<std::string> known(read_.begin(), read_.end());
  known.insert(known.end(), extra_known.begin(), extra_known.end());
  for (const auto& item : node_) {
    const std::string key = scalar_text(item.first);
    if (read_.count(key) || std::find(extra_known.begin(), extra_known.end(), key) != extra_known.end())
      continue;
    std::string message = fmt::format("unknown key (known here: {}", join_names(known));
    if (auto close = closest_name(key, known)) message += fmt::format("; did you mean '{}'?", *close);
    message += ")";
    diag_.error(geotrain::line_of(item.first), key_path(key), message);
  }
}

}  // namespace geotrain
