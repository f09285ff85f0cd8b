#include "sim/scenario/memory_estimate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <optional>
#include <set>
#include <vector>

#include "sim/common/memory_budget.hpp"

namespace geotrain {

namespace {

// Per-item costs: peak RSS (/usr/bin/time) of this build on 2026-11-25, fitted over sizes; the
// runs are listed in sim/scenario/README.md.
// The process itself (SimGrid, yaml-cpp, presets): `check` of small scenarios peaks at 33-35 MB.
constexpr double kBase_B = 30e6;
// Per device / rank of a simulation: `geotrain bench --all` (2026-11-28, with twin ranks) peaks at
// 4.5 KB per device (ddp ring, 262,144 devices: 1.17 GB) to 73 KB (DiLoCo with averaging
// timeout, stragglers and churn, 4,096); gpipe 16 x 16,384 at 12 KB. The floor of these is
// used, so the estimate never refuses what would fit (before twin ranks the floor was 90 KB).
constexpr double kPerDevice_B = 4e3;
// Per ordered pair of a region table: a Link (two doubles) and the copy the effective
// (scaled) network makes; `check` of DT-FM case 2 at 2000/4000/8000 devices (1250^2 to 5000^2
// pairs: 83, 230, 816 MB) gives 31 B per pair.
constexpr double kPerRegionPair_B = 32;
// Per ordered pair of an explicit matrix: values, the parsed CSV cells of both grids and the
// routes; `check` of 1000 x 1000 and 2000 x 2000 CSV matrices (130 and 417 MB) gives 96 B.
constexpr double kPerMatrixPair_B = 96;
// Per ordered device pair when the scheduler runs: the cost model's four N x N double tables
// (sim/scheduler/cost_model.cpp; computed, not measured).
constexpr double kSchedulerPerPair_B = 4 * 8;
// Per device and population member: one int label of the scheduler's population.
constexpr double kSchedulerPerGene_B = 4;

// DT-FM cases 1 and 2 make every instance a region (sim/topology/dtfm_cases.cpp).
std::int64_t dtfm_case_regions(std::int64_t c, std::int64_t n) {
  if (c == 1) return (n + 7) / 8;
  if (c == 2) return n / 2 / 4 + (n - n / 2 / 4 * 4);
  return 8;
}

std::optional<std::int64_t> integer_of(const YAML::Node& node) {
  if (!node.IsDefined() || !node.IsScalar()) return std::nullopt;
  const std::string& t = node.Scalar();
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
  return v;
}

YAML::Node child(const YAML::Node& node, const char* key) {
  return node.IsDefined() && node.IsMap() ? node[key] : YAML::Node();
}

}  // namespace

MemoryEstimate estimate_memory(const MemoryInputs& in) {
  const double n = static_cast<double>(in.devices);
  const double side = static_cast<double>(in.table_side);
  MemoryEstimate e;
  e.bytes = kBase_B + kPerDevice_B * n;
  std::vector<std::string> items{fmt::format("{} devices", in.devices)};
  if (in.table_side > 0) {
    e.bytes += side * side * (in.matrix ? kPerMatrixPair_B : kPerRegionPair_B);
    items.push_back(fmt::format("{} {} x {}", in.matrix ? "matrix" : "region table", in.table_side,
                                in.table_side));
  }
  if (in.scheduler_population > 0) {
    e.bytes += n * n * kSchedulerPerPair_B +
               n * static_cast<double>(in.scheduler_population) * kSchedulerPerGene_B;
    items.push_back(fmt::format("scheduler {} x {} and population {}", in.devices, in.devices,
                                in.scheduler_population));
  }
  for (const auto& item : items) e.detail += (e.detail.empty() ? "" : ", ") + item;
  return e;
}

namespace sections {

void check_memory(Context& ctx, const YAML::Node& root, const DeviceRegions& regions,
                  std::int64_t devices) {
  if (devices <= 0) return;
  MemoryInputs in;
  in.devices = devices;
  const YAML::Node network = child(root, "network");
  if (auto c = integer_of(child(network, "case")); c && *c >= 1 && *c <= 5) {
    in.table_side = dtfm_case_regions(*c, devices);
  } else if (child(network, "matrix").IsDefined()) {
    in.table_side = devices;
    in.matrix = true;
  } else {
    const std::set<std::string> names(regions.region_of_device.begin(),
                                      regions.region_of_device.end());
    in.table_side = static_cast<std::int64_t>(names.size());
  }
  const YAML::Node placement_kind = child(child(root, "placement"), "kind");
  if (placement_kind.IsDefined() && placement_kind.IsScalar() &&
      placement_kind.Scalar() == "scheduler")
    in.scheduler_population = std::max<std::int64_t>(
        2, integer_of(child(child(root, "scheduler"), "population")).value_or(100));
  const auto budget = memory_budget();
  if (!budget) return;
  const MemoryEstimate e = estimate_memory(in);
  if (e.bytes <= budget->bytes) return;
  ctx.diag.error(regions.count_line, regions.count_key, regions.count_text,
                 fmt::format("this run needs an estimated {} ({}), more than the {} {}",
                             format_gib(e.bytes), e.detail, format_gib(budget->bytes),
                             budget->source == kMemoryLimitVariable
                                 ? std::string("allowed by ") + kMemoryLimitVariable
                                 : std::string("available")));
}

}  // namespace sections

}  // namespace geotrain
