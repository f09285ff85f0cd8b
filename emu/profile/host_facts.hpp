#pragma once
// What `geotrain profile` records about the machine it measures on and checks before it starts:
// the CPU's model name, the memory the kernel says is available. Torch-free; read from /proc.
#include <optional>
#include <string>

namespace geotrain::profile {

// The first "model name" of /proc/cpuinfo ("unknown" when there is none, e.g. on some ARM hosts).
std::string cpu_model_name(const std::string& cpuinfo = "/proc/cpuinfo");
// MemAvailable of /proc/meminfo in bytes; nothing when the file or the line is missing.
std::optional<double> available_memory_bytes(const std::string& meminfo = "/proc/meminfo");
// Now, UTC, ISO 8601 ("2026-11-28T09:14:03Z").
std::string utc_now_iso8601();

}  // namespace geotrain::profile
