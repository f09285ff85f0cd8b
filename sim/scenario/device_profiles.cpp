#include <stdexcept>

#include "sim/scenario/device_library.hpp"
#include "sim/scenario/scenario.hpp"

namespace geotrain {

const std::map<std::string, DeviceProfile>& builtin_device_profiles() {
  // Every library entry under its own name (figures and sources: device_library.cpp).
  static const std::map<std::string, DeviceProfile> profiles = [] {
    std::map<std::string, DeviceProfile> by_name;
    for (const auto& d : device_library()) by_name.emplace(d.figures.name, d.figures);
    return by_name;
  }();
  return profiles;
}

const DeviceProfile& Scenario::profile_of(int device) const {
  return profiles.at(devices.at(static_cast<std::size_t>(device)).profile);
}

}  // namespace geotrain
