#pragma once
// Internal to the scenario loader: one function per top-level section. Each reads its keys
// through YamlSection (so line numbers and unknown keys are handled the same everywhere) and
// fills its part of the Scenario.
#include <optional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/yaml_section.hpp"

namespace geotrain::sections {

struct Context {
  Diagnostics& diag;
  std::string base_dir;  // relative file names in the scenario resolve against this
  // A file the scenario reads: an absolute path is taken as given (the user wrote it out); a
  // relative one resolves against base_dir and must stay under it, symlinks included, else
  // the problem is reported at `line` for `key` and nullopt returned.
  std::optional<std::string> resolve(const std::string& file, int line,
                                     const std::string& key) const;
};

// What the devices section says about regions, for the network section to use.
struct DeviceRegions {
  std::vector<std::string> region_of_device;  // empty when the devices section names no regions
  int line = 0;
  // Where the device count was given (devices.count, or the devices section for groups), for
  // messages about what that many devices would cost.
  int count_line = 0;
  std::string count_key = "devices";
  std::string count_text;
};

DeviceRegions parse_devices(Context& ctx, YamlSection section, Scenario& out);
void parse_network(Context& ctx, YamlSection section, const DeviceRegions& regions, Scenario& out);
// network.bandwidth_changes (the list node), after the network itself is known.
void parse_bandwidth_changes(Context& ctx, const YAML::Node& list, Scenario& out);
void parse_model(Context& ctx, YamlSection section, Scenario& out);
void parse_training(Context& ctx, YamlSection section, Scenario& out);
void parse_strategy(Context& ctx, YamlSection section, Scenario& out);
void parse_placement(Context& ctx, YamlSection section, Scenario& out);
void parse_scheduler(Context& ctx, YamlSection section, Scenario& out);
void parse_simulation(Context& ctx, YamlSection section, Scenario& out);
void parse_emulation(Context& ctx, YamlSection section, Scenario& out);
void parse_stragglers(Context& ctx, YamlSection section, Scenario& out);
// `churn` is a list, not a mapping: the loader hands over the raw node.
void parse_churn(Context& ctx, const YAML::Node& node, Scenario& out);
// Once the whole scenario is bound: strategy support, worker range, overlaps, someone present
// in every round and a state source at every rejoin.
void check_churn(const Scenario& s, Diagnostics& diag);

}  // namespace geotrain::sections
