#include "sim/sweep/expansion.hpp"

#include <fmt/format.h>

#include <charconv>
#include <limits>

#include "sim/common/error.hpp"
#include "sim/sweep/fnv1a.hpp"

namespace geotrain::sweep {

Shard parse_shard(const std::string& text) {
  Shard s;
  const auto slash = text.find('/');
  auto number = [](std::string_view t, int& out) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), out);
    return ec == std::errc() && end == t.data() + t.size();
  };
  if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), s.index) ||
      !number(std::string_view(text).substr(slash + 1), s.count) || s.count < 1 || s.index < 1 ||
      s.index > s.count)
    throw InputError(
        fmt::format("--shard = '{}': not a shard (expected i/n with 1 <= i <= n, e.g. 2/4)", text));
  return s;
}

bool in_shard(std::size_t point, const Shard& shard) {
  return point % static_cast<std::size_t>(shard.count) == static_cast<std::size_t>(shard.index - 1);
}

namespace {
constexpr std::size_t kMany = std::numeric_limits<std::size_t>::max();
std::size_t times(std::size_t a, std::size_t b) {
  return b != 0 && a > kMany / b ? kMany : a * b;
}
}  // namespace

std::size_t point_count(const SweepSpec& spec) {
  std::size_t n = 1;
  for (const auto& v : spec.vary) n = times(n, v.values.size());
  return n;
}

std::size_t shard_point_count(const SweepSpec& spec, const Shard& shard) {
  const std::size_t points = point_count(spec), first = static_cast<std::size_t>(shard.index - 1);
  const std::size_t step = static_cast<std::size_t>(shard.count);
  return points <= first ? 0 : (points - first - 1) / step + 1;  // first, first + step, ...
}

std::size_t shard_run_count(const SweepSpec& spec, const Shard& shard) {
  return times(shard_point_count(spec, shard), spec.strategies.size());
}

std::vector<PointRun> expand(const SweepSpec& spec, const std::string& base_text,
                             const Shard& shard) {
  std::vector<PointRun> runs;
  const std::size_t points = point_count(spec);
  for (std::size_t p = 0; p < points; ++p) {
    if (!in_shard(p, shard)) continue;
    // Mixed-radix digits of p, the last key the fastest.
    std::vector<std::string> values(spec.vary.size());
    std::size_t rest = p;
    for (std::size_t k = spec.vary.size(); k-- > 0;) {
      values[k] = spec.vary[k].values[rest % spec.vary[k].values.size()];
      rest /= spec.vary[k].values.size();
    }
    std::vector<std::string> common;
    for (std::size_t k = 0; k < spec.vary.size(); ++k)
      common.push_back(spec.vary[k].key + "=" + values[k]);
    if (spec.network_model) common.push_back("simulation.network_model=" + *spec.network_model);
    if (spec.iterations)
      common.push_back(fmt::format("simulation.iterations={}", *spec.iterations));
    for (std::size_t s = 0; s < spec.strategies.size(); ++s) {
      PointRun r{p, s, values, common, ""};
      r.sets.push_back("strategy=" + spec.strategies[s].block);
      std::string effective = base_text;
      for (const auto& set : r.sets) effective += '\0' + set;
      r.hash = fnv1a64_hex(effective);
      runs.push_back(std::move(r));
    }
  }
  return runs;
}

}  // namespace geotrain::sweep
