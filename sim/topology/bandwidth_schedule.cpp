#include "sim/topology/bandwidth_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "sim/common/units.hpp"
#include "sim/program/dynamic_rules.hpp"

namespace geotrain {

namespace {

// A seeded entry: a uniform draw at 0, every, 2 every, ... before until, then 1 at until.
void expand_seeded(const BandwidthChangeSpec& spec, std::vector<BandwidthStep>& out) {
  const auto draws = static_cast<std::int64_t>(std::ceil(spec.until_s / spec.every_s - 1e-9));
  for (std::int64_t k = 0; k < draws; ++k) {
    const double u = unit_draw(spec.seed, 0xB4D, static_cast<std::uint64_t>(k));
    out.push_back({static_cast<double>(k) * spec.every_s,
                   spec.factor_min + (spec.factor_max - spec.factor_min) * u, spec.select,
                   spec.line, true});
  }
  out.push_back({spec.until_s, 1.0, spec.select, spec.line, true});
}

}  // namespace

BandwidthSchedule::BandwidthSchedule(const std::vector<BandwidthChangeSpec>& specs, Topology network)
    : network_(std::move(network)) {
  for (const auto& spec : specs) {
    if (spec.every_s > 0) expand_seeded(spec, steps_);
    else steps_.push_back({spec.at_s, spec.factor, spec.select, spec.line, false});
  }
  // Stable: entries at the same time keep their file order, so the later one wins.
  std::stable_sort(steps_.begin(), steps_.end(),
                   [](const BandwidthStep& a, const BandwidthStep& b) { return a.at_s < b.at_s; });
}

std::vector<DatedFactor> BandwidthSchedule::timeline(
    const std::function<bool(const BandwidthStep&)>& selected) const {
  std::vector<DatedFactor> out;
  double current = 1;
  for (std::size_t i = 0; i < steps_.size();) {
    const double t = steps_[i].at_s;
    double next = current;
    for (; i < steps_.size() && steps_[i].at_s == t; ++i)
      if (selected(steps_[i])) next = steps_[i].factor;
    if (next != current) out.push_back({t, next});
    current = next;
  }
  return out;
}

std::vector<DatedFactor> BandwidthSchedule::pair_timeline(int src, int dst) const {
  return timeline([&](const BandwidthStep& s) { return s.select.selects(network_, src, dst); });
}

std::vector<PairChange> BandwidthSchedule::pair_changes(const std::vector<int>& devices) const {
  std::vector<int> ids = devices;
  if (ids.empty()) {
    ids.resize(static_cast<std::size_t>(network_.device_count()));
    std::iota(ids.begin(), ids.end(), 0);
  }
  std::vector<PairChange> out;
  if (steps_.empty()) return out;
  for (int s : ids)
    for (int d : ids) {
      if (s == d) continue;
      for (const auto& f : pair_timeline(s, d)) out.push_back({f.at_s, s, d, f.factor});
    }
  std::stable_sort(out.begin(), out.end(),
                   [](const PairChange& a, const PairChange& b) { return a.at_s < b.at_s; });
  return out;
}

std::vector<std::string> BandwidthSchedule::describe() const {
  std::vector<std::string> out;
  for (const auto& s : steps_)
    out.push_back(fmt::format("{}: {} x{:.4g}{}", units::format_duration(s.at_s),
                              s.select.describe(network_), s.factor,
                              s.line > 0 ? fmt::format(" (line {}{})", s.line, s.drawn ? ", seeded" : "")
                                         : ""));
  return out;
}

}  // namespace geotrain
