#include "emu/launch/rank_files.hpp"

#include <cmath>
#include <fstream>

#include <fmt/format.h>

#include "sim/common/error.hpp"
#include "sim/results/csv_line.hpp"

namespace geotrain::emu {

namespace {

std::ifstream open_csv(const std::string& path, const std::string& header) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: missing (the worker did not write it)", path));
  std::string first;
  std::getline(in, first);
  if (first != header)
    throw InputError(fmt::format("{}:1: header '{}' (expected '{}')", path, first, header));
  return in;
}

double number(const std::string& field, double empty_value) {
  return field.empty() ? empty_value : std::stod(field);
}

}  // namespace

std::vector<RankOpRow> read_rank_ops(const std::string& path) {
  auto in = open_csv(path, "rank,op,label,kind,start_s,end_s,bytes,step,cpu_s");
  std::vector<RankOpRow> rows;
  std::string line;
  for (int n = 2; std::getline(in, line); ++n) {
    const auto f = results::split_csv_line(line);
    try {
      if (f.size() != 9) throw std::invalid_argument("field count");
      rows.push_back({std::stoi(f[0]), std::stoi(f[1]), std::stoi(f[7]), f[2], f[3],
                      std::stod(f[4]), std::stod(f[5]), number(f[6], -1), number(f[8], std::nan(""))});
    } catch (const std::exception&) {
      throw InputError(fmt::format("{}:{}: '{}' (expected 9 fields: rank,op,label,kind,start_s,"
                                   "end_s,bytes,step,cpu_s)", path, n, line));
    }
  }
  return rows;
}

std::vector<RankIterationRow> read_rank_iterations(const std::string& path) {
  auto in = open_csv(path, "step,time_s,loss,tokens_per_s,host_busy_s");
  std::vector<RankIterationRow> rows;
  std::string line;
  for (int n = 2; std::getline(in, line); ++n) {
    const auto f = results::split_csv_line(line);
    try {
      if (f.size() != 5) throw std::invalid_argument("field count");
      rows.push_back({std::stoi(f[0]), std::stod(f[1]), number(f[2], std::nan("")), std::stod(f[3]),
                      number(f[4], std::nan(""))});
    } catch (const std::exception&) {
      throw InputError(fmt::format("{}:{}: '{}' (expected 5 fields: step,time_s,loss,tokens_per_s,"
                                   "host_busy_s)", path, n, line));
    }
  }
  return rows;
}

}  // namespace geotrain::emu
