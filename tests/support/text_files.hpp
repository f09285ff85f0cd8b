#pragma once
// Reading pinned expectation files (X.expected beside X.yaml) line by line.
#include <filesystem>
#include <string>
#include <vector>

namespace geotrain::test {

// The lines of a text file without their newlines; empty when the file cannot be read.
std::vector<std::string> read_lines(const std::filesystem::path& path);

}  // namespace geotrain::test
