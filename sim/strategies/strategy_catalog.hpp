#pragma once
// Every strategy a scenario can name, with the parameters it takes (type, default, range, help).
// The scenario loader validates `strategy:` against this catalog, so unknown parameters and bad
// values are reported with the file and line; a strategy's Program builder then reads typed values.
// Adding a strategy = one entry here + one builder file (see strategy_registry.hpp).
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace geotrain {

class Diagnostics;

enum class ParamKind { integer, number, choice, flag, bytes, duration };

struct ParamDecl {
  std::string name;
  ParamKind kind;
  ParamValue default_value;
  std::string help;
  double min = 0;  // integer/number/bytes/duration
  double max = 1e300;
  std::vector<std::string> choices;  // choice
};

struct StrategyDecl {
  std::string name;
  std::string summary;
  std::vector<ParamDecl> params;
  // Cross-field checks once the whole scenario is bound (e.g. stages x replicas = devices).
  // Report with diag.error(line, "strategy...", message); line is strategy's line.
  std::function<void(const Scenario&, Diagnostics&, int line)> check;
};

const std::vector<StrategyDecl>& strategy_catalog();
const StrategyDecl* find_strategy(const std::string& name);
std::vector<std::string> strategy_names();

// Number of devices the scenario runs on (emulation.workers when set, else the device list).
int participating_devices(const Scenario& s);

}  // namespace geotrain
