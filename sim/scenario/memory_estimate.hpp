#pragma once
// Refuses, before anything is allocated, a scenario whose run could not fit in memory (a
// million devices on DT-FM case 2 would need terabytes for its region-pair table). The
// estimate adds the structures that grow fastest with the device count; each per-item cost is
// documented in memory_estimate.cpp with how it was measured. It is a floor, not a promise:
// what it refuses certainly would not fit.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "sim/scenario/sections.hpp"

namespace geotrain {

struct MemoryEstimate {
  double bytes = 0;
  std::string detail;  // the items, e.g. "network table 625000 x 625000 regions, ..."
};

// What the estimate needs, read before the network is built.
struct MemoryInputs {
  std::int64_t devices = 0;
  std::int64_t table_side = 0;  // side of the network's pair table: regions, or devices (matrix)
  bool matrix = false;          // explicit N x N matrix (parsed cells and routes on top)
  std::int64_t scheduler_population = 0;  // 0: no scheduler runs while loading/simulating
};

MemoryEstimate estimate_memory(const MemoryInputs& in);

namespace sections {
// Reads the inputs from the raw document (the network and placement sections are not bound
// yet) and reports "this run needs an estimated X GiB (...), more than the Y GiB available"
// at the device count when the estimate exceeds memory_budget().
void check_memory(Context& ctx, const YAML::Node& root, const DeviceRegions& regions,
                  std::int64_t devices);
}  // namespace sections

}  // namespace geotrain
