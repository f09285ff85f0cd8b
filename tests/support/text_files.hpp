#pragma once
// Reading pinned expectation files (X.expected beside X.yaml) line by line.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace geotrain::test {

// The lines of a text file without their newlines; empty when the file cannot be read.
std::vector<std::string> read_lines(const std::filesystem::path& path);
// The same with every occurrence of each key of `placeholders` replaced by its value: pinned
// messages that list a registry (the strategies: `{strategies}`) stay pinned in form while the
// set grows without editing them.
std::vector<std::string> read_lines(const std::filesystem::path& path,
                                    const std::map<std::string, std::string>& placeholders);

}  // namespace geotrain::test
