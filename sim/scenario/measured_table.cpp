#include "sim/scenario/measured_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "sim/common/text_rules.hpp"
#include "sim/common/units.hpp"
#include "sim/scenario/value_range.hpp"

namespace geotrain {

namespace {

constexpr std::size_t kMaxProblems = 20;
const std::vector<std::string> kFirstColumns{"src", "dst", "delay", "bandwidth"};

std::string key_of(const std::string& src, const std::string& dst) {
  return src + '\n' + dst;
}

std::vector<std::string> split_fields(const std::string& text) {
  std::vector<std::string> fields;
  std::stringstream row(text);
  std::string field;
  while (std::getline(row, field, ',')) {
    while (!field.empty() && (field.back() == ' ' || field.back() == '\r')) field.pop_back();
    while (!field.empty() && field.front() == ' ') field.erase(field.begin());
    fields.push_back(field);
  }
  if (!text.empty() && text.back() == ',') fields.emplace_back();
  return fields;
}

// One table problem, capped: the 21st and later ones are counted, not listed.
struct Problems {
  std::vector<std::string>& out;
  const std::string& shown;
  std::size_t count = 0;
  void add(int line, const std::string& what) {
    if (++count <= kMaxProblems)
      out.push_back(printable(fmt::format("{}:{}: {}", shown, line, what)));
  }
  void cell(int line, std::size_t column, const std::string& value, const std::string& what) {
    add(line,
        fmt::format("column {} ({}) = '{}': {}", column + 1, kFirstColumns[column], value, what));
  }
};

// A unit-carrying cell, checked against its physical range.
std::optional<double> value_of(Problems& p, int line, std::size_t column, const std::string& text,
                               units::Parsed (*parse)(std::string_view), const ValueRange& range) {
  const units::Parsed parsed = parse(text);
  if (!parsed.ok()) {
    p.cell(line, column, text, parsed.error);
    return std::nullopt;
  }
  if (auto problem = range_problem(range, parsed.value)) {
    p.cell(line, column, text, *problem);
    return std::nullopt;
  }
  return parsed.value;
}

std::optional<MeasuredRow> row_of(Problems& p, int line, const std::vector<std::string>& fields) {
  bool ok = true;
  for (std::size_t c = 0; c < 2; ++c) {
    if (fields[c].empty()) {
      p.cell(line, c, fields[c], "empty (expected a region name such as aws:us-east-1)");
      ok = false;
    } else if (auto problem = text_problem(fields[c])) {
      p.cell(line, c, fields[c], *problem);
      ok = false;
    }
  }
  const auto delay = value_of(p, line, 2, fields[2], units::parse_duration_s, ranges::kLinkDelay);
  const auto bandwidth =
      value_of(p, line, 3, fields[3], units::parse_bandwidth_Bps, ranges::kBandwidth);
  if (!ok || !delay || !bandwidth) return std::nullopt;
  return MeasuredRow{fields[0], fields[1], Link{*delay, *bandwidth}, line};
}

}  // namespace

MeasuredTable MeasuredTable::read(const std::string& path, const std::string& shown,
                                  std::vector<std::string>& problems) {
  MeasuredTable t;
  t.shown_ = shown;
  Problems p{problems, t.shown_};
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec)) {
    problems.push_back(
        printable(fmt::format("{}: not a regular file (expected a CSV table)", shown)));
    return t;
  }
  std::ifstream in(path);
  if (!in) {
    problems.push_back(
        printable(fmt::format("{}: cannot open table: {}", shown, std::strerror(errno))));
    return t;
  }
  std::string text;
  std::vector<std::string> header;
  for (int line = 1; std::getline(in, text); ++line) {
    if (text.empty() || text == "\r" || text[0] == '#') continue;
    std::vector<std::string> fields = split_fields(text);
    if (header.empty()) {
      header = fields;
      if (header.size() < 4 ||
          !std::equal(kFirstColumns.begin(), kFirstColumns.end(), header.begin())) {
        p.add(line, fmt::format("header = '{}': expected the columns src,dst,delay,bandwidth first",
                                text));
        return t;
      }
      continue;
    }
    if (fields.size() != header.size()) {
      p.add(line, fmt::format("row has {} columns (expected {}, as the header on top)",
                              fields.size(), header.size()));
      continue;
    }
    auto row = row_of(p, line, fields);
    if (!row) continue;
    const auto [it, added] = t.index_.emplace(key_of(row->src, row->dst), t.rows_.size());
    if (!added) {
      p.add(line, fmt::format("row {} -> {}: already given on line {} (expected one row per "
                              "directed pair)",
                              row->src, row->dst, t.rows_[it->second].line));
      continue;
    }
    for (const std::string* name : {&row->src, &row->dst})
      if (!t.knows(*name)) t.regions_.push_back(*name);
    t.rows_.push_back(std::move(*row));
  }
  if (header.empty())
    problems.push_back(
        printable(fmt::format("{}: no header (expected src,dst,delay,bandwidth,...)", shown)));
  if (p.count > kMaxProblems)
    problems.push_back(fmt::format("{}: ... {} more problems", shown, p.count - kMaxProblems));
  return t;
}

bool MeasuredTable::knows(const std::string& region) const {
  return std::find(regions_.begin(), regions_.end(), region) != regions_.end();
}

const MeasuredRow* MeasuredTable::find(const std::string& src, const std::string& dst) const {
  const auto it = index_.find(key_of(src, dst));
  return it == index_.end() ? nullptr : &rows_[it->second];
}

double MeasuredTable::distance_s(const std::string& a, const std::string& b) const {
  if (a == b) return 0;
  double best = std::numeric_limits<double>::infinity();
  for (const MeasuredRow* r : {find(a, b), find(b, a)})
    if (r) best = std::min(best, r->link.delay_s);
  return best;
}

const MeasuredRow* MeasuredTable::nearest(const std::string& src, const std::string& dst) const {
  if (const MeasuredRow* reverse = find(dst, src)) return reverse;
  const MeasuredRow* best = nullptr;
  double best_s = std::numeric_limits<double>::infinity();
  for (const MeasuredRow& r : rows_) {
    if (r.src == r.dst) continue;
    const double d = distance_s(src, r.src) + distance_s(dst, r.dst);
    if (d < best_s) {
      best_s = d;
      best = &r;
    }
  }
  return best;
}

}  // namespace geotrain
