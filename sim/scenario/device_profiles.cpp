#include <stdexcept>

#include "sim/scenario/scenario.hpp"

namespace geotrain {

const std::map<std::string, DeviceProfile>& builtin_device_profiles() {
  // Vendor peak figures (dense tensor-core fp16/bf16; fp32 without TF32). Efficiency is the
  // fraction of peak a transformer layer reaches; 0.4 is a typical figure for GPT training.
  static const std::map<std::string, DeviceProfile> profiles{
      {"V100", {"V100", 15.7e12, 125e12, 16.0 * (1ull << 30), 0.4}},
      {"A100", {"A100", 19.5e12, 312e12, 80.0 * (1ull << 30), 0.4}},
      {"H100", {"H100", 67e12, 989e12, 80.0 * (1ull << 30), 0.4}},
      {"cpu", {"cpu", 100e9, 100e9, 16.0 * (1ull << 30), 0.5}},
  };
  return profiles;
}

const DeviceProfile& Scenario::profile_of(int device) const {
  return profiles.at(devices.at(static_cast<std::size_t>(device)).profile);
}

}  // namespace geotrain
