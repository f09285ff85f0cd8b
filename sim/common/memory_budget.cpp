#include "sim/common/memory_budget.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "sim/common/error.hpp"
#include "sim/common/units.hpp"

namespace geotrain {

namespace {

std::optional<double> mem_available_bytes() {
  std::ifstream in("/proc/meminfo");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string key;
    double kib = 0;
    if (fields >> key >> kib && key == "MemAvailable:") return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::optional<MemoryBudget> memory_budget() {
  if (const char* limit = std::getenv(kMemoryLimitVariable); limit && *limit) {
    const auto parsed = units::parse_bytes(limit);
    if (!parsed.ok() || parsed.value <= 0)
      throw InputError(fmt::format("{} = '{}': {} (expected a size such as 512MiB or 8GB)",
                                   kMemoryLimitVariable, limit,
                                   parsed.ok() ? "must be positive" : parsed.error));
    return MemoryBudget{parsed.value, kMemoryLimitVariable};
  }
  if (auto available = mem_available_bytes()) return MemoryBudget{*available, "available"};
  return std::nullopt;
}

std::string format_gib(double bytes) {
  const double gib = bytes / 1073741824.0;
  return gib >= 10 ? fmt::format("{:.0f} GiB", gib) : fmt::format("{:.2g} GiB", gib);
}

}  // namespace geotrain
