#include "sim/process/child_spec.hpp"

namespace geotrain::process {

std::string command_line(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace geotrain::process
