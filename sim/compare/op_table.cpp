#include "sim/compare/op_table.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>

#include "sim/common/error.hpp"

namespace geotrain::compare {

namespace {

OpKind kind_of(const std::string& type) {
  static const std::map<std::string, OpKind> kinds{{"compute", OpKind::compute},
                                                   {"send", OpKind::send},
                                                   {"recv", OpKind::recv},
                                                   {"collective", OpKind::collective},
                                                   {"wait", OpKind::wait}};
  auto it = kinds.find(type);
  return it == kinds.end() ? OpKind::other : it->second;
}

struct Columns {
  std::map<std::string, std::size_t> index;
  std::size_t at(const std::string& path, const std::string& name) const {
    auto it = index.find(name);
    if (it == index.end())
      throw InputError(fmt::format("{}:1: column '{}' missing (expected the ops.csv columns of "
                                   "geotrain simulate / emulate)", path, name));
    return it->second;
  }
};

}  // namespace

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::compute: return "compute";
    case OpKind::send: return "send";
    case OpKind::recv: return "recv";
    case OpKind::collective: return "collective";
    case OpKind::wait: return "wait";
    case OpKind::other: break;
  }
  return "other";
}

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

std::vector<OpRow> read_ops_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(fmt::format("{}: cannot open (expected an ops.csv of a run)", path));
  std::string line;
  std::getline(in, line);
  Columns cols;
  const auto header = split_csv_line(line);
  for (std::size_t i = 0; i < header.size(); ++i) cols.index[header[i]] = i;
  const std::size_t c_rank = cols.at(path, "rank"), c_it = cols.at(path, "iteration"),
                    c_op = cols.at(path, "op"), c_type = cols.at(path, "type"),
                    c_label = cols.at(path, "label"), c_nb = cols.at(path, "nonblocking"),
                    c_start = cols.at(path, "start_s"), c_end = cols.at(path, "end_s"),
                    c_peer = cols.at(path, "peer"), c_group = cols.at(path, "group");
  std::vector<OpRow> rows;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const auto f = split_csv_line(line);
    if (f.size() < header.size())
      throw InputError(fmt::format("{}:{}: {} fields, expected {}", path, number, f.size(), header.size()));
    try {
      OpRow r;
      r.rank = std::stoi(f[c_rank]);
      r.iteration = std::stoi(f[c_it]);
      r.op = std::stoi(f[c_op]);
      r.kind = kind_of(f[c_type]);
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

}  // namespace geotrain::compare
