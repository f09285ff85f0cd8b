#pragma once
// Reads one YAML mapping of a scenario with typed, unit-aware accessors. Every accessor reports
// problems to Diagnostics (file:line, key path, value, expectation) and returns std::nullopt, so
// parsing goes on and all problems are reported together. finish() reports keys nobody read as
// unknown, with a did-you-mean.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/scenario/diagnostics.hpp"
#include "sim/scenario/value_range.hpp"

namespace geotrain {

class YamlSection {
 public:
  // node must be a map (or null/undefined for an absent section); otherwise an error is recorded.
  YamlSection(Diagnostics& diag, const YAML::Node& node, std::string path);

  bool present() const { return present_; }
  // Written in the file at all (present() is false for a non-map value, which was reported).
  bool given() const { return given_; }
  bool has(const std::string& key) const;
  int line() const { return line_; }
  int line_of(const std::string& key) const;
  const std::string& path() const { return path_; }
  std::string key_path(const std::string& key) const;
  Diagnostics& diag() { return diag_; }

  // Typed reads. `required` records "missing key" when absent. Numbers are checked against
  // [min, max] (inclusive) and must be finite.
  std::optional<double> number(const std::string& key, double min, double max,
                               bool required = false);
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max,
                                      bool required = false);
  std::optional<bool> boolean(const std::string& key);
  std::optional<std::string> text(const std::string& key, bool required = false);
  // One of `choices`, with did-you-mean.
  std::optional<std::string> choice(const std::string& key, const std::vector<std::string>& choices,
                                    const std::string& what, bool required = false);
  // Unit-aware values, checked against their physical range (value_range.hpp), which the
  // message states in units: "out of range (expected 1 bps ... 10 Tbps)".
  std::optional<double> duration_s(const std::string& key, const ValueRange& range,
                                   bool required = false);
  std::optional<double> bandwidth_Bps(const std::string& key, bool required = false);
  // A bandwidth checked against another range (a device's memory: ranges::kMemoryBandwidth).
  std::optional<double> bandwidth_Bps(const std::string& key, const ValueRange& range);
  std::optional<double> bytes(const std::string& key, const ValueRange& range,
                              bool required = false);
  std::optional<double> flops(const std::string& key, bool required = false);

  // A nested map (absent -> a section with present() == false).
  YamlSection child(const std::string& key);
  // The raw node of a key (marks it as read).
  YAML::Node raw(const std::string& key);

  // Reports keys that were never read, duplicates were reported at construction.
  void finish(const std::vector<std::string>& extra_known = {});

 private:
  std::optional<std::string> scalar(const std::string& key, bool required);
  void missing(const std::string& key);

  Diagnostics& diag_;
  YAML::Node node_;
  std::string path_;
  bool present_ = false;
  bool given_ = false;
  int line_ = 0;
  std::set<std::string> read_;
};

// Scalar text of a node with its 1-based line ("" and 0 for non-scalars).
std::string scalar_text(const YAML::Node& node);
int line_of(const YAML::Node& node);

}  // namespace geotrain
