#pragma once
// Problem messages are one line each (a user, a test and a CI log read them line by line), but
// they quote what the input held: a YAML value, a key, or the character yaml-cpp choked on, any
// of which may be a newline or another control byte.
#include <string>

namespace geotrain {

// text with control characters written as C escapes (\n, \r, \t, \xNN); all else unchanged.
std::string one_line(const std::string& text);

}  // namespace geotrain
