#include "sim/results/ops_csv_reader.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>

#include "sim/common/error.hpp"
#include "sim/results/csv_line.hpp"

namespace geotrain::results {

namespace {

OpType type_of(const std::string& type) {
  static const std::map<std::string, OpType> types{{"compute", OpType::compute},
                                                   {"send", OpType::send},
                                                   {"recv", OpType::recv},
                                                   {"collective", OpType::collective},
                                                   {"wait", OpType::wait}};
  const auto it = types.find(type);
  return it == types.end() ? OpType::other : it->second;
}

}  // namespace

const char* to_string(OpType type) {
  switch (type) {
    case OpType::compute: return "compute";
    case OpType::send: return "send";
    case OpType::recv: return "recv";
    case OpType::collective: return "collective";
    case OpType::wait: return "wait";
    case OpType::other: break;
  }
  return "other";
}

std::vector<OpRecord> read_ops_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open (expected the ops.csv of a run)", path));
  std::string line;
  std::getline(in, line);
  const CsvHeader header(path, line);
  const std::size_t c_rank = header.column("rank"), c_it = header.column("iteration"),
                    c_op = header.column("op"), c_type = header.column("type"),
                    c_label = header.column("label"), c_nb = header.column("nonblocking"),
                    c_start = header.column("start_s"), c_end = header.column("end_s"),
                    c_peer = header.column("peer"), c_group = header.column("group");
  std::vector<OpRecord> rows;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const auto f = split_csv_line(line);
    if (f.size() < header.size())
      throw InputError(fmt::format("{}:{}: {} fields, expected {}", path, number, f.size(), header.size()));
    try {
      OpRecord r;
      r.rank = std::stoi(f[c_rank]);
      r.iteration = std::stoi(f[c_it]);
      r.op = std::stoi(f[c_op]);
      r.type = type_of(f[c_type]);
      r.label = f[c_label];
      r.nonblocking = f[c_nb] == "1" || f[c_nb] == "true";
      r.start_s = std::stod(f[c_start]);
      r.end_s = std::stod(f[c_end]);
      r.peer = f[c_peer].empty() ? -1 : std::stoi(f[c_peer]);
      r.group = f[c_group];
      rows.push_back(std::move(r));
    } catch (const std::logic_error&) {
      throw InputError(fmt::format("{}:{}: a number field does not parse ('{}')", path, number, line));
    }
  }
  return rows;
}

}  // namespace geotrain::results
