#pragma once
// The device library: the GPUs people rent for training (and `cpu`), with peak dense rates,
// memory and memory bandwidth from the vendors' data sheets, each entry citing its own. A table
// in C++ (device_library.cpp), so nothing has to be found at run time. Scenarios name an entry
// as a device profile (`profile: H200`) or start one of their own from it
// (`devices.profiles.<p>.like: H200`); `geotrain devices` prints it; `geotrain profile
// --device-entry` measures a device's efficiency against an entry's peak. docs/devices.md holds
// the table with its sources and how the figures are used.
#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.hpp"

namespace geotrain {

// The efficiencies a profile may have (devices.profiles.<p>.efficiency; a measured entry too).
inline constexpr double kMinDeviceEfficiency = 1e-6;
inline constexpr double kMaxDeviceEfficiency = 1;

struct LibraryDevice {
  DeviceProfile figures;  // name, peaks, memory, memory bandwidth, default efficiency
  std::string alias_of;   // "" or the entry this name stands for (the same figures)
  std::string variant;    // the form factor and memory the figures are for ("SXM4 80 GB")
  std::string source;     // the vendor document's title
  std::string url;
  std::string note;  // how a figure the device lacks or the document leaves open was filled
};

// Every entry, aliases after the entry they stand for, in the order `geotrain devices` prints.
const std::vector<LibraryDevice>& device_library();
// The entry called `name` (an alias included), or nullptr.
const LibraryDevice* library_device(std::string_view name);
// Every name, sorted as error messages list them ("A100, A100-40GB, ..., cpu").
std::vector<std::string> library_device_names();

}  // namespace geotrain
