#include "sim/results/csv_line.hpp"

#include <fmt/format.h>

#include "sim/common/error.hpp"

namespace geotrain::results {

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') out.back() += '"', ++i;
    else if (c == '"') quoted = !quoted;
    else if (c == ',' && !quoted) out.emplace_back();
    else if (c != '\r') out.back() += c;
  }
  return out;
}

CsvHeader::CsvHeader(std::string path, const std::string& header_line) : path_(std::move(path)) {
  const auto names = split_csv_line(header_line);
  for (std::size_t i = 0; i < names.size(); ++i) index_.emplace(names[i], i);
}

std::size_t CsvHeader::column(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end())
    throw InputError(fmt::format("{}:1: column '{}' missing (expected the columns geotrain writes "
                                 "there; see sim/results/README.md)", path_, name));
  return it->second;
}

}  // namespace geotrain::results
