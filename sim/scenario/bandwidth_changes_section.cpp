// network.bandwidth_changes: dated changes of link bandwidth, as factors of the configured one.
//   bandwidth_changes:
//     - {at: 20s, factor: 0.25}                          # every link
//     - {at: 20s, between: [Oregon, Tokyo], factor: 0.5} # one region pair, both directions
//     - {at: 40s, devices: [3, 4], factor: 0.1}          # every link to or from these devices
//     - {every: 10s, until: 60s, factor_min: 0.3, factor_max: 1, seed: 7}   # seeded draws
// Read after the network is built, so region names and device ids are checked against it.
#include <fmt/format.h>

#include <algorithm>
#include <cfloat>
#include <charconv>

#include "sim/common/did_you_mean.hpp"
#include "sim/scenario/sections.hpp"

namespace geotrain::sections {

namespace {

constexpr double kMaxFactor = 1000;
constexpr int kMaxDraws = 100000;

std::optional<double> factor(YamlSection& s, const std::string& key) {
  auto v = s.number(key, -DBL_MAX, DBL_MAX, true);
  if (v && (*v <= 0 || *v > kMaxFactor)) {
    s.diag().error(s.line_of(key), s.key_path(key), scalar_text(s.raw(key)),
                   fmt::format("expected a factor above 0 and at most {} (1 = the configured "
                               "bandwidth)", kMaxFactor));
    return std::nullopt;
  }
  return v;
}

void read_regions(YamlSection& s, const Topology& net, BandwidthSelector& sel, bool& ok) {
  const YAML::Node between = s.raw("between");
  if (!between.IsSequence() || between.size() != 2) {
    s.diag().error(s.line_of("between"), s.key_path("between"), "expected two region names [A, B]");
    ok = false;
    return;
  }
  const auto& names = net.region_names();
  std::vector<int> ends;
  for (const auto& end : between) {
    const std::string name = scalar_text(end);
    auto it = std::find(names.begin(), names.end(), name);
    if (it != names.end()) {
      ends.push_back(static_cast<int>(it - names.begin()));
      continue;
    }
    std::string message = fmt::format("no such region (regions: {}", join_names(names));
    if (auto close = closest_name(name, names)) message += fmt::format("; did you mean '{}'?", *close);
    s.diag().error(line_of(end), s.key_path("between"), name, message + ")");
    ok = false;
  }
  if (ends.size() == 2) sel = {BandwidthSelector::Scope::regions, ends[0], ends[1], {}};
}

void read_devices(YamlSection& s, int device_count, BandwidthSelector& sel, bool& ok) {
  const YAML::Node list = s.raw("devices");
  if (!list.IsSequence() || list.size() == 0) {
    s.diag().error(s.line_of("devices"), s.key_path("devices"), "expected a list of device ids, e.g. [3, 4]");
    ok = false;
    return;
  }
  sel.scope = BandwidthSelector::Scope::devices;
  for (const auto& item : list) {
    const std::string text = scalar_text(item);
    int id = -1;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (ec != std::errc() || ptr != text.data() + text.size() || id < 0 || id >= device_count) {
      s.diag().error(line_of(item), s.key_path("devices"), text,
                     fmt::format("no such device (expected ids 0 to {})", device_count - 1));
      ok = false;
      continue;
    }
    sel.devices.push_back(id);
  }
  std::sort(sel.devices.begin(), sel.devices.end());
  sel.devices.erase(std::unique(sel.devices.begin(), sel.devices.end()), sel.devices.end());
}

// {every, until, factor_min, factor_max, seed}: the seeded form.
bool read_seeded(YamlSection& s, std::uint64_t default_seed, BandwidthChangeSpec& c) {
  const auto every = s.duration_s("every", ranges::kRunTime, true);
  const auto until = s.duration_s("until", ranges::kRunTime, true);
  const auto lo = factor(s, "factor_min");
  const auto hi = factor(s, "factor_max");
  const auto seed = s.integer("seed", 0, INT64_MAX);
  if (!every || !until || !lo || !hi) return false;
  bool ok = true;
  if (*every <= 0) {
    s.diag().error(s.line_of("every"), s.key_path("every"), scalar_text(s.raw("every")),
                   "must be positive (expected e.g. 10s)");
    ok = false;
  } else if (*until / *every > kMaxDraws) {
    s.diag().error(s.line_of("until"), s.key_path("until"), scalar_text(s.raw("until")),
                   fmt::format("makes more than {} draws (expected a longer `every` or an earlier `until`)",
                               kMaxDraws));
    ok = false;
  }
  if (*lo > *hi) {
    s.diag().error(s.line_of("factor_max"), s.key_path("factor_max"), scalar_text(s.raw("factor_max")),
                   fmt::format("is below factor_min {} (expected factor_min <= factor_max)", *lo));
    ok = false;
  }
  c.every_s = *every;
  c.until_s = *until;
  c.factor_min = *lo;
  c.factor_max = *hi;
  c.seed = seed ? static_cast<std::uint64_t>(*seed) : default_seed;
  return ok;
}

bool read_entry(YamlSection& s, const Scenario& out, BandwidthChangeSpec& c) {
  bool ok = s.present();
  if (!ok) return false;
  c.line = s.line();
  if (s.has("between") && s.has("devices")) {
    s.diag().error(s.line(), s.path(), "gives both between and devices (expected one of them, "
                                       "or neither for every link)");
    s.raw("between");
    s.raw("devices");
    ok = false;
  } else if (s.has("between")) {
    read_regions(s, out.network, c.select, ok);
  } else if (s.has("devices")) {
    read_devices(s, static_cast<int>(out.devices.size()), c.select, ok);
  }
  if (s.has("every")) {
    if (s.has("at"))
      s.diag().error(s.line_of("at"), s.key_path("at"), scalar_text(s.raw("at")),
                     "a seeded entry has no `at` (expected {at, factor} or {every, until, "
                     "factor_min, factor_max[, seed]})");
    ok = read_seeded(s, out.seed, c) && ok;
  } else {
    const auto at = s.duration_s("at", ranges::kRunTime, true);
    const auto f = factor(s, "factor");
    ok = ok && at && f;
    if (at) c.at_s = *at;
    if (f) c.factor = *f;
  }
  // Listed as known in messages about other keys.
  std::vector<std::string> also;
  for (const char* key : {"between", "devices", "every"})
    if (!s.has(key)) also.emplace_back(key);
  s.finish(also);
  return ok;
}

}  // namespace

void parse_bandwidth_changes(Context& ctx, const YAML::Node& list, Scenario& out) {
  if (!list.IsDefined() || list.IsNull()) return;
  if (!list.IsSequence()) {
    ctx.diag.error(line_of(list), "network.bandwidth_changes",
                   "expected a list of {at, factor[, between | devices]}");
    return;
  }
  for (std::size_t k = 0; k < list.size(); ++k) {
    YamlSection s(ctx.diag, list[k], fmt::format("network.bandwidth_changes[{}]", k));
    BandwidthChangeSpec c;
    if (read_entry(s, out, c)) out.bandwidth_changes.push_back(std::move(c));
  }
}

}  // namespace geotrain::sections
