#include "sim/scenario/measured_network.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "sim/common/data_dir.hpp"
#include "sim/common/did_you_mean.hpp"
#include "sim/common/text_rules.hpp"
#include "sim/common/units.hpp"
#include "sim/scenario/measured_table.hpp"

namespace fs = std::filesystem;

namespace geotrain::sections {

namespace {

constexpr std::size_t kMaxMissingShown = 20;

struct TableFile {
  std::string path;   // to open
  std::string shown;  // in messages
};

// `p` relative to the working directory when it lies below it (as a user running from the
// repository sees it), else as given.
std::string shown_path(const fs::path& p) {
  std::error_code ec;
  const fs::path cwd = fs::current_path(ec);
  if (ec) return p.string();
  const fs::path rel = p.lexically_proximate(cwd);
  return rel.empty() || *rel.begin() == ".." ? p.string() : rel.string();
}

std::vector<std::string> bundled_tables(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.path().extension() == ".csv") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A name: <data_dir>/scenarios/networks/<name>.csv. A path (ends in .csv or holds a '/'):
// resolved against the scenario's folder like every other file a scenario reads.
std::optional<TableFile> locate_table(Context& ctx, const std::string& value, int line) {
  const bool is_path = value.find('/') != std::string::npos ||
                       (value.size() > 4 && value.compare(value.size() - 4, 4, ".csv") == 0);
  if (is_path) {
    auto resolved = ctx.resolve(value, line, "network.measured");
    if (!resolved) return std::nullopt;
    return TableFile{*resolved, *resolved};
  }
  const fs::path dir = fs::path(data_dir()) / "scenarios" / "networks";
  std::error_code ec;
  if (!identifier_problem(value) && fs::is_regular_file(dir / (value + ".csv"), ec)) {
    const fs::path full = dir / (value + ".csv");
    return TableFile{full.string(), shown_path(full)};
  }
  const auto names = bundled_tables(dir);
  std::string message =
      fmt::format("no bundled table of this name (bundled: {}", join_names(names));
  if (auto close = closest_name(value, names))
    message += fmt::format("; did you mean '{}'?", *close);
  ctx.diag.error(line, "network.measured", value,
                 message + "; or a file ending in .csv, relative to the scenario's folder)");
  return std::nullopt;
}

std::optional<Link> read_intra_link(YamlSection s) {
  auto delay = s.duration_s("delay", ranges::kLinkDelay, true);
  auto bandwidth = s.bandwidth_Bps("bandwidth", true);
  s.finish();
  if (!delay || !bandwidth) return std::nullopt;
  return Link{*delay, *bandwidth};
}

std::string link_text(const Link& l) {
  return fmt::format("{}, {}", units::format_duration(l.delay_s),
                     units::format_bandwidth(l.bandwidth_Bps));
}

// What the network section asked for.
struct Request {
  std::string value;  // network.measured as written
  int line = 0;
  std::optional<Link> intra;
  bool fill = false;
};

// Region names in first-seen order and each device's region; false (reported) when the table
// lacks one of them.
bool index_measured_regions(Context& ctx, const MeasuredTable& table, const Request& q,
                            const DeviceRegions& regions, std::vector<std::string>& names,
                            std::vector<int>& region_of) {
  for (const auto& name : regions.region_of_device) {
    auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) it = names.insert(names.end(), name);
    region_of.push_back(static_cast<int>(it - names.begin()));
  }
  bool known = true;
  for (const auto& name : names) {
    if (table.knows(name)) continue;
    std::string message =
        fmt::format("region '{}' of the devices is not in the table {} ({} regions: {}", name,
                    table.shown(), table.regions().size(), join_names(table.regions()));
    if (auto close = closest_name(name, table.regions()))
      message += fmt::format("; did you mean '{}'?", *close);
    ctx.diag.error(q.line, "network.measured", q.value, message + ")");
    known = false;
  }
  return known;
}

void build_measured_network(Context& ctx, const MeasuredTable& table, const Request& q,
                            const DeviceRegions& regions, Scenario& out) {
  std::vector<std::string> names;
  std::vector<int> region_of;
  if (!index_measured_regions(ctx, table, q, regions, names, region_of)) return;
  const std::size_t r = names.size();
  std::vector<Link> inside(r), inter(r * r);
  for (std::size_t a = 0; a < r; ++a) {
    const MeasuredRow* own = table.find(names[a], names[a]);
    inside[a] = q.intra ? *q.intra : own ? own->link : kMeasuredIntraDefault;
  }
  std::size_t missing = 0;
  for (std::size_t a = 0; a < r; ++a)
    for (std::size_t b = 0; b < r; ++b) {
      if (a == b) continue;
      const MeasuredRow* row = table.find(names[a], names[b]);
      if (!row && q.fill && (row = table.nearest(names[a], names[b])))
        out.filled_pairs.push_back(fmt::format("{} -> {} from {} -> {} ({}:{}: {})", names[a],
                                               names[b], row->src, row->dst, table.shown(),
                                               row->line, link_text(row->link)));
      if (row) {
        inter[a * r + b] = row->link;
      } else if (++missing <= kMaxMissingShown) {
        ctx.diag.error(q.line, "network.measured", q.value,
                       fmt::format("the table {} has no row {} -> {} (expected one{})",
                                   table.shown(), names[a], names[b],
                                   q.fill ? "; no measured pair is near it either"
                                          : ", or network.measured_fill: nearest"));
      }
    }
  if (missing > kMaxMissingShown)
    ctx.diag.error(q.line, "network.measured", q.value,
                   fmt::format("... and {} more pairs without a row", missing - kMaxMissingShown));
  if (missing > 0) return;
  out.network = Topology::regional(names, region_of, std::move(inside), std::move(inter));
  out.network_source = fmt::format(
      "measured {} ({} regions{})", table.shown(), r,
      out.filled_pairs.empty() ? ""
                               : fmt::format(", {} pairs filled from the nearest measured pair",
                                             out.filled_pairs.size()));
}

}  // namespace

void parse_measured(Context& ctx, YamlSection& s, const DeviceRegions& regions, Scenario& out,
                    bool build) {
  const auto value = s.text("measured");
  const int line = s.line_of("measured");
  const auto fill = s.choice("measured_fill", {"none", "nearest"}, "fill rule");
  std::optional<Link> intra;
  if (s.has("measured_intra")) intra = read_intra_link(s.child("measured_intra"));
  if (!value) {
    for (const char* key : {"measured_fill", "measured_intra"})
      if (s.has(key))
        ctx.diag.error(s.line_of(key), s.key_path(key),
                       "has no effect without network.measured (expected a table name, or no "
                       "measured_fill and measured_intra)");
    return;
  }
  if (!build) return;
  if (regions.region_of_device.empty()) {
    ctx.diag.error(line, "network.measured", *value,
                   "no device names a region (expected devices.groups[].region or "
                   "devices.regions naming the table's regions, e.g. aws:us-east-1)");
    return;
  }
  const auto file = locate_table(ctx, *value, line);
  if (!file) return;
  std::vector<std::string> problems;
  const MeasuredTable table = MeasuredTable::read(file->path, file->shown, problems);
  // Each table problem (its own file, line and column) hangs off the scenario's line and key, so
  // every problem names the scenario file first, as all the loader's do.
  for (const auto& p : problems) ctx.diag.error(line, "network.measured", *value, p);
  if (!problems.empty()) return;
  build_measured_network(
      ctx, table, Request{*value, line, intra, fill.value_or("none") == "nearest"}, regions, out);
}

}  // namespace geotrain::sections
