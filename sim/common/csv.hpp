#pragma once
// CSV quoting shared by every results writer (RFC 4180: quote fields with , " or newline).
#include <string>

namespace geotrain {

std::string csv_field(const std::string& s);

}  // namespace geotrain
