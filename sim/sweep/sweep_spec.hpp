#pragma once
// A sweep spec (YAML): a base scenario, the scenario keys to vary and the strategies to compare.
//   base: ../decentralized/ddp__case5.yaml        # relative to the spec
//   vary: {network.regions.intra.bandwidth: [10Mbps, 1Gbps], devices.count: [8, 32]}
//   strategies: {ddp: {name: ddp-allreduce}, gpipe: {name: gpipe, stages: 2, replicas: auto}}
//   network_model: flow        iterations: 1        winner_by: throughput | time_per_work
//   statistical_efficiency: {gpipe: 1.0}           # per strategy label, for time_per_work
// Every problem is reported at once as `file:line: key: what is wrong (expected ...)` and
// thrown as InputError. Nothing is written.
#include <optional>
#include <string>
#include <vector>

namespace geotrain::sweep {

enum class WinnerBy { throughput, time_per_work };

struct VaryKey {
  std::string key;                  // a scenario key path as `--set` takes it
  std::vector<std::string> values;  // YAML text of each value, as written
  int line = 0;
};

struct StrategyEntry {
  std::string label;  // [A-Za-z0-9._-]{1,64}
  std::string block;  // the strategy mapping in YAML flow style
  double statistical_efficiency = 1.0;
  int line = 0;
};

struct SweepSpec {
  std::string path;       // as given
  std::string name;       // the file's stem (a safe name)
  std::string base_path;  // resolved against the spec's folder
  std::string base_as_written;
  int base_line = 0;
  std::vector<VaryKey> vary;
  std::vector<StrategyEntry> strategies;
  std::optional<std::string> network_model;  // flow | tcp; absent: the base's
  std::optional<int> iterations;             // absent: the base's
  WinnerBy winner_by = WinnerBy::throughput;
};

// Parses and checks the spec alone (not yet against the base scenario: see spec_check.hpp).
SweepSpec load_sweep_spec(const std::string& path);
SweepSpec parse_sweep_spec(const std::string& text, const std::string& display_name);

std::string winner_by_name(WinnerBy w);
// The criterion in words, for the CSV, sweep.json and the plot's title.
std::string criterion_text(WinnerBy w);

// The rule for every spec-derived name that may reach a file or a column: [A-Za-z0-9._-]{1,64}.
bool is_safe_name(const std::string& name);

}  // namespace geotrain::sweep
