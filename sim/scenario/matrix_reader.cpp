#include "sim/scenario/matrix_reader.hpp"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "sim/common/units.hpp"
#include "sim/topology/multi_hop_routes.hpp"

namespace geotrain::sections {

namespace {

// A cell as written plus where it was written, for error messages.
struct Cell {
  std::string text;
  int line;
};
using Grid = std::vector<std::vector<Cell>>;

std::optional<Grid> read_inline(Context& ctx, const YAML::Node& node, const std::string& path) {
  Grid grid;
  for (const auto& row : node) {
    if (!row.IsSequence()) {
      ctx.diag.error(line_of(row), path, "expected a list of rows, each a list of values");
      return std::nullopt;
    }
    std::vector<Cell> cells;
    for (const auto& cell : row) cells.push_back({cell.IsNull() ? "" : scalar_text(cell), line_of(cell)});
    grid.push_back(std::move(cells));
  }
  return grid;
}

std::optional<Grid> read_csv(Context& ctx, const std::string& file, int line, const std::string& path) {
  const auto resolved = ctx.resolve(file, line, path);
  if (!resolved) return std::nullopt;
  const std::string full = *resolved;
  // A device never ends (/dev/zero) and its one endless "line" would take all memory.
  std::error_code ec;
  if (std::filesystem::exists(full, ec) && !std::filesystem::is_regular_file(full, ec)) {
    ctx.diag.error(line, path, file,
                   fmt::format("'{}' is not a regular file (expected a CSV file)", full));
    return std::nullopt;
  }
  std::ifstream in(full);
  if (!in) {
    ctx.diag.error(line, path, file, fmt::format("cannot open CSV file '{}'", full));
    return std::nullopt;
  }
  Grid grid;
  std::string text;
  while (std::getline(in, text)) {
    if (text.empty() || text[0] == '#') continue;
    std::vector<Cell> cells;
    std::stringstream row(text);
    std::string cell;
    while (std::getline(row, cell, ',')) {
      while (!cell.empty() && (cell.back() == ' ' || cell.back() == '\r')) cell.pop_back();
      while (!cell.empty() && cell.front() == ' ') cell.erase(cell.begin());
      cells.push_back({cell, line});
    }
    grid.push_back(std::move(cells));
  }
  return grid;
}

std::optional<Grid> read_grid(Context& ctx, YamlSection& s, const std::string& key) {
  const YAML::Node node = s.raw(key);
  if (!node.IsDefined() || node.IsNull()) {
    ctx.diag.error(s.line(), s.key_path(key), "missing (expected an N x N list or a CSV file name)");
    return std::nullopt;
  }
  if (node.IsScalar()) return read_csv(ctx, node.Scalar(), line_of(node), s.key_path(key));
  if (node.IsSequence()) return read_inline(ctx, node, s.key_path(key));
  ctx.diag.error(line_of(node), s.key_path(key), "expected an N x N list or a CSV file name");
  return std::nullopt;
}

// Equal, or both missing (NaN).
bool same_value(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

bool is_missing(const std::string& text) { return text.empty() || text == "-" || text == "~" || text == "null"; }

// Parses every cell; NaN marks "no direct link".
std::optional<std::vector<double>> to_values(Context& ctx, const Grid& grid, std::size_t n,
                                             const std::string& path,
                                             units::Parsed (*parse)(std::string_view),
                                             const std::string& default_unit,
                                             const ValueRange& range) {
  bool ok = true;
  if (grid.size() != n) {
    ctx.diag.error(grid.empty() ? 0 : grid[0][0].line, path,
                   fmt::format("has {} rows but there are {} devices (expected a square {} x {} matrix)",
                               grid.size(), n, n, n));
    return std::nullopt;
  }
  std::vector<double> values(n * n, std::nan(""));
  for (std::size_t i = 0; i < n; ++i) {
    if (grid[i].size() != n) {
      ctx.diag.error(grid[i].empty() ? 0 : grid[i][0].line, fmt::format("{}[{}]", path, i),
                     fmt::format("row has {} values (expected {}: the matrix must be square)",
                                 grid[i].size(), n));
      ok = false;
      continue;
    }
    for (std::size_t j = 0; j < n; ++j) {
      const Cell& cell = grid[i][j];
      if (i == j || is_missing(cell.text)) continue;
      auto parsed = parse(cell.text);
      if (!parsed.ok() && !default_unit.empty()) parsed = parse(cell.text + default_unit);
      const std::string where = fmt::format("{}[{}][{}]", path, i, j);
      if (!parsed.ok()) {
        ctx.diag.error(cell.line, where, cell.text, parsed.error);
        ok = false;
      } else if (auto problem = range_problem(range, parsed.value)) {
        ctx.diag.error(cell.line, where, cell.text, *problem);
        ok = false;
      } else {
        values[i * n + j] = parsed.value;
      }
    }
  }
  if (!ok) return std::nullopt;
  return values;
}

}  // namespace

void parse_matrix(Context& ctx, YamlSection s, const DeviceRegions& regions, Scenario& out) {
  const std::size_t n = out.devices.size();
  auto delay_grid = read_grid(ctx, s, "delay");
  auto bandwidth_grid = read_grid(ctx, s, "bandwidth");
  YamlSection unit_section = s.child("units");
  const auto delay_unit = unit_section.text("delay");
  const auto bandwidth_unit = unit_section.text("bandwidth");
  unit_section.finish();
  const bool symmetric = s.boolean("symmetric").value_or(true);
  s.finish();
  if (!delay_grid || !bandwidth_grid || n == 0) return;

  auto delay = to_values(ctx, *delay_grid, n, "network.matrix.delay", units::parse_duration_s,
                         delay_unit.value_or(""), ranges::kLinkDelay);
  auto bandwidth =
      to_values(ctx, *bandwidth_grid, n, "network.matrix.bandwidth", units::parse_bandwidth_Bps,
                bandwidth_unit.value_or(""), ranges::kBandwidth);
  if (!delay || !bandwidth) return;

  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const bool d_missing = std::isnan((*delay)[i * n + j]);
      if (i != j && d_missing != std::isnan((*bandwidth)[i * n + j]))
        ctx.diag.error((*delay_grid)[i][j].line, fmt::format("network.matrix[{}][{}]", i, j),
                       "a link needs both a delay and a bandwidth (one of them is missing)");
      if (symmetric && i < j &&
          (!same_value((*delay)[i * n + j], (*delay)[j * n + i]) ||
           !same_value((*bandwidth)[i * n + j], (*bandwidth)[j * n + i])))
        ctx.diag.error((*delay_grid)[i][j].line, fmt::format("network.matrix[{}][{}]", i, j),
                       fmt::format("differs from [{}][{}] (expected a symmetric matrix; set "
                                   "symmetric: false for asymmetric links)",
                                   j, i));
    }
  if (!ctx.diag.ok()) return;

  std::vector<std::string> names;
  std::vector<int> region_of(n, 0);
  if (regions.region_of_device.empty()) {
    names = {"all"};
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      auto it = std::find(names.begin(), names.end(), regions.region_of_device[i]);
      if (it == names.end()) it = names.insert(names.end(), regions.region_of_device[i]);
      region_of[i] = static_cast<int>(it - names.begin());
    }
  }
  auto routed = route_missing_links(n, *delay, *bandwidth);
  if (!routed.unreachable.empty()) {
    ctx.diag.error(s.line(), "network.matrix",
                   fmt::format("device {} cannot reach device {} (no path of direct links)",
                               routed.unreachable.front().first, routed.unreachable.front().second));
    return;
  }
  out.network = Topology::matrix(names, region_of, std::move(*delay), std::move(*bandwidth));
  out.network_source = routed.routed_pairs > 0
                           ? fmt::format("matrix ({} pairs routed over several hops)", routed.routed_pairs)
                           : "matrix";
}

}  // namespace geotrain::sections
