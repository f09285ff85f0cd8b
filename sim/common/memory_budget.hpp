#pragma once
// How much memory a run may plan to use. Work whose estimate exceeds it is refused up front
// with the estimate (an InputError naming the scenario key), never left to the OOM killer.
#include <optional>
#include <string>

namespace geotrain {

// The environment variable that overrides the machine's figure, e.g. GEOTRAIN_MEMORY_LIMIT=512MiB
// (tests use it to exercise the refusal without allocating anything).
inline constexpr const char* kMemoryLimitVariable = "GEOTRAIN_MEMORY_LIMIT";

struct MemoryBudget {
  double bytes = 0;
  std::string source;  // "available" (MemAvailable of /proc/meminfo) or "GEOTRAIN_MEMORY_LIMIT"
};

// GEOTRAIN_MEMORY_LIMIT when set (throws InputError when it is not a size), else MemAvailable;
// nullopt when neither is known (then nothing is refused).
std::optional<MemoryBudget> memory_budget();

// "3.2 GiB": the binary unit the estimates are stated in.
std::string format_gib(double bytes);

}  // namespace geotrain
