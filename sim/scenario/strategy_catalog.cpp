#include "sim/scenario/strategy_catalog.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/common/error.hpp"

namespace geotrain {

namespace {

// A function-local static, so registrars in other translation units may run before or after
// this file's own static initialization.
std::vector<StrategyDecl>& mutable_catalog() {
  static std::vector<StrategyDecl> catalog;
  return catalog;
}

}  // namespace

void add_strategy_decl(StrategyDecl decl) {
  auto& catalog = mutable_catalog();
  if (find_strategy(decl.name))
    throw Error(fmt::format("strategy '{}' is registered twice", decl.name));
  const auto at = std::upper_bound(
      catalog.begin(), catalog.end(), decl.name,
      [](const std::string& name, const StrategyDecl& d) { return name < d.name; });
  catalog.insert(at, std::move(decl));
}

const std::vector<StrategyDecl>& strategy_catalog() { return mutable_catalog(); }

const StrategyDecl* find_strategy(const std::string& name) {
  for (const auto& s : strategy_catalog())
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& s : strategy_catalog()) names.push_back(s.name);
  return names;
}

ParamDecl choice_param(std::string name, std::string def, std::vector<std::string> choices,
                       std::string help) {
  return {std::move(name), ParamKind::choice, ParamValue{def}, std::move(help), 0, 0,
          std::move(choices), {}};
}

ParamDecl integer_param(std::string name, std::int64_t def, double min, double max,
                        std::string help) {
  return {std::move(name), ParamKind::integer, ParamValue{def}, std::move(help), min, max, {}, {}};
}

ParamDecl number_param(std::string name, double def, double min, double max, std::string help) {
  return {std::move(name), ParamKind::number, ParamValue{def}, std::move(help), min, max, {}, {}};
}

ParamDecl bytes_param(std::string name, double def, ValueRange r, std::string help) {
  return {std::move(name), ParamKind::bytes, ParamValue{def}, std::move(help), r.min, r.max, {}, {}};
}

ParamDecl duration_param(std::string name, double def_s, ValueRange r, std::string help) {
  return {
      std::move(name), ParamKind::duration, ParamValue{def_s}, std::move(help), r.min, r.max, {}, {}};
}

ParamDecl map_param(std::string name, MapParamReader read, std::string help) {
  return {std::move(name), ParamKind::map, ParamValue{false}, std::move(help), 0, 0, {}, std::move(read)};
}

int participating_devices(const Scenario& s) {
  return s.emulation.workers > 0 ? s.emulation.workers : static_cast<int>(s.devices.size());
}

}  // namespace geotrain
