// strategy: a name from the strategy catalog plus that strategy's parameters.
//   strategy: {name: gpipe, stages: 8, replicas: 8, schedule: 1f1b}
#include <fmt/format.h>

#include "sim/common/did_you_mean.hpp"
#include "sim/common/units.hpp"
#include "sim/scenario/sections.hpp"
#include "sim/scenario/strategy_catalog.hpp"

namespace geotrain::sections {

namespace {

std::optional<ParamValue> read_param(YamlSection& s, const ParamDecl& p) {
  switch (p.kind) {
    case ParamKind::integer:
      if (auto v = s.integer(p.name, static_cast<std::int64_t>(p.min), static_cast<std::int64_t>(p.max)))
        return ParamValue{*v};
      break;
    case ParamKind::number:
      if (auto v = s.number(p.name, p.min, p.max)) return ParamValue{*v};
      break;
    case ParamKind::choice:
      if (auto v = s.choice(p.name, p.choices, p.name)) return ParamValue{*v};
      break;
    case ParamKind::flag:
      if (auto v = s.boolean(p.name)) return ParamValue{*v};
      break;
    case ParamKind::bytes:
      if (auto v = s.bytes(p.name, ValueRange{Quantity::bytes, p.min, p.max}))
        return ParamValue{*v};
      break;
    case ParamKind::duration:
      if (auto v = s.duration_s(p.name, ValueRange{Quantity::duration, p.min, p.max}))
        return ParamValue{*v};
      break;
    case ParamKind::map:
      break;  // read by parse_strategy into "<name>.<field>" params
  }
  return std::nullopt;
}

}  // namespace

void parse_strategy(Context& ctx, YamlSection s, Scenario& out) {
  if (!s.present()) {
    if (s.given()) return;
    ctx.diag.error(0, "strategy", fmt::format("missing section (expected strategy: {{name: ...}}; "
                                              "strategies: {})",
                                              join_names(strategy_names())));
    return;
  }
  auto name = s.choice("name", strategy_names(), "strategy", true);
  if (!name) return;  // its parameters cannot be checked without knowing the strategy
  const StrategyDecl& decl = *find_strategy(*name);
  out.strategy.name = *name;
  for (const auto& p : decl.params) {
    if (p.kind == ParamKind::map) {
      YamlSection section = s.child(p.name);
      p.read_map(section, out.strategy.params);
      continue;
    }
    out.strategy.params[p.name] = p.default_value;
    if (auto v = read_param(s, p)) out.strategy.params[p.name] = *v;
  }
  s.finish();
}

}  // namespace geotrain::sections
