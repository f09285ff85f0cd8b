#pragma once
// Every strategy a scenario can name, with the parameters it takes (type, default, range, help).
// The scenario loader validates `strategy:` against this catalog, so unknown parameters and bad
// values are reported with the file and line; a strategy's Program builder then reads typed values.
//
// The catalog is filled by the strategies themselves: each strategy file in sim/strategies
// declares its parameters next to its builder and registers both (strategy_registry.hpp). The
// catalog lives here, below the strategies, because the loader needs it and sim/scenario must
// not include sim/strategies (that was a folder-level include cycle).
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/scenario/scenario.hpp"
#include "sim/scenario/value_range.hpp"

namespace geotrain {

class Diagnostics;
class YamlSection;

// map: a nested mapping (strategy: {compression: {kind: int8}}) read by the declaration's own
// reader, which stores every field, defaults included, as "<name>.<field>" in the spec's params
// and reports problems with their lines; for fields whose defaults depend on each other.
enum class ParamKind { integer, number, choice, flag, bytes, duration, map };

// Reads a map parameter's section (present() is false when the scenario leaves it out).
using MapParamReader = std::function<void(YamlSection& section, std::map<std::string, ParamValue>& params)>;

struct ParamDecl {
  std::string name;
  ParamKind kind;
  ParamValue default_value;
  std::string help;
  double min = 0;  // integer/number/bytes/duration
  double max = 1e300;
  std::vector<std::string> choices;  // choice
  MapParamReader read_map;           // map
};

struct StrategyDecl {
  std::string name;
  std::string summary;
  std::vector<ParamDecl> params;
  // Cross-field checks once the whole scenario is bound (e.g. stages x replicas = devices).
  // Report with diag.error(line, "strategy...", message); line is strategy's line.
  std::function<void(const Scenario&, Diagnostics&, int line)> check;
  // Whether the strategy's Programs model workers leaving and rejoining (a `churn` section).
  bool supports_churn = false;
};

// Adds a strategy (called by StrategyRegistrar before main). Throws geotrain::Error on a
// duplicate name: two files claiming one name is a programming error, not a user's.
void add_strategy_decl(StrategyDecl decl);
// Sorted by name, so messages listing the strategies do not depend on link order.
const std::vector<StrategyDecl>& strategy_catalog();
const StrategyDecl* find_strategy(const std::string& name);
std::vector<std::string> strategy_names();

// Parameter declarations for the strategy files. Sizes and durations carry their physical
// range (value_range.hpp).
ParamDecl choice_param(std::string name, std::string def, std::vector<std::string> choices,
                       std::string help);
ParamDecl integer_param(std::string name, std::int64_t def, double min, double max,
                        std::string help);
ParamDecl number_param(std::string name, double def, double min, double max, std::string help);
ParamDecl bytes_param(std::string name, double def, ValueRange r, std::string help);
ParamDecl duration_param(std::string name, double def_s, ValueRange r, std::string help);
ParamDecl map_param(std::string name, MapParamReader read, std::string help);

// Number of devices the scenario runs on (emulation.workers when set, else the device list).
int participating_devices(const Scenario& s);

}  // namespace geotrain
