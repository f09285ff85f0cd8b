#include "text_files.hpp"

#include <fstream>

namespace geotrain::test {

std::vector<std::string> read_lines(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> read_lines(const std::filesystem::path& path,
                                    const std::map<std::string, std::string>& placeholders) {
  auto lines = read_lines(path);
  for (auto& line : lines)
    for (const auto& [key, value] : placeholders)
      for (auto at = line.find(key); at != std::string::npos; at = line.find(key, at + value.size()))
        line.replace(at, key.size(), value);
  return lines;
}

}  // namespace geotrain::test
