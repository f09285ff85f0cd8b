#pragma once
// Reading the CSV files a run writes (ops.csv, iterations.csv): one line split into fields, and a
// header that finds a column by name, so a reader survives columns being added or reordered and
// names the file when one it needs is missing.
#include <map>
#include <string>
#include <vector>

namespace geotrain::results {

// Splits one CSV line (RFC 4180 quotes: a quoted field may hold commas and doubled quotes).
std::vector<std::string> split_csv_line(const std::string& line);

class CsvHeader {
 public:
  CsvHeader(std::string path, const std::string& header_line);
  // The index of column `name`; throws InputError "<path>:1: column 'x' missing (expected ...)".
  std::size_t column(const std::string& name) const;
  std::size_t size() const { return index_.size(); }

 private:
  std::string path_;
  std::map<std::string, std::size_t> index_;
};

}  // namespace geotrain::results
