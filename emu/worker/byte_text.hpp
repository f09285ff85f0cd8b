#pragma once
// Text carried as bytes through the c10d store (which stores std::vector<uint8_t>), and back.
#include <cstdint>
#include <string>
#include <vector>

namespace geotrain {

inline std::vector<std::uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
inline std::string text_of(const std::vector<std::uint8_t>& v) { return {v.begin(), v.end()}; }

}  // namespace geotrain
