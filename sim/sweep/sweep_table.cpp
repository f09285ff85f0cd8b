#include "sim/sweep/sweep_table.hpp"

#include <fmt/format.h>

#include <optional>
#include <set>

#include "sim/common/csv.hpp"
#include "sim/common/error.hpp"
#include "sim/sweep/atomic_file.hpp"
#include "sim/sweep/point_result.hpp"
#include "sim/sweep/winners.hpp"

namespace geotrain::sweep {

namespace {

std::string number(double x) {
  return fmt::format("{:.9g}", x);
}
std::string optional_number(const std::optional<double>& x) {
  return x ? number(*x) : "";
}

std::string header(const SweepSpec& spec) {
  std::string h = "point";
  for (const auto& v : spec.vary) h += "," + csv_field(v.key);
  return h +
         ",strategy,status,iteration_time_s,tokens_per_s,samples_per_s,bytes_per_step,compute_share,"
         "statistical_efficiency,time_per_token_s,winner,margin_to_runner_up,relative_to_winner,"
         "criterion,reason\n";
}

std::string row(const SweepSpec& spec, const PointRun& run, const PointResult& r,
                const Standing& st) {
  const auto& strategy = spec.strategies[run.strategy];
  std::string line = std::to_string(run.point);
  for (const auto& v : run.values) line += "," + csv_field(v);
  line += "," + csv_field(strategy.label) + (r.ok ? ",ok," : ",skipped,");
  const double effective = r.tokens_per_s * strategy.statistical_efficiency;
  if (r.ok)
    line += fmt::format("{},{},{},{},{},{},{}", number(r.iteration_time_s), number(r.tokens_per_s),
                        number(r.samples_per_s), number(r.bytes_per_step), number(r.compute_share),
                        number(strategy.statistical_efficiency),
                        effective > 0 ? number(1 / effective) : "");
  else
    line += fmt::format(",,,,,{},", number(strategy.statistical_efficiency));
  line +=
      fmt::format(",{},{},{},{},{}\n", st.winner ? "true" : "false",
                  optional_number(st.margin_to_runner_up), optional_number(st.relative_to_winner),
                  csv_field(winner_by_name(spec.winner_by)), csv_field(r.ok ? "" : r.reason));
  return line;
}

}  // namespace

TableCounts write_sweep_csv(const SweepSpec& spec, const std::vector<PointRun>& runs,
                            const std::string& points_dir, const std::string& csv_path) {
  TableCounts counts;
  std::vector<PointResult> results;
  results.reserve(runs.size());
  for (const auto& run : runs) {
    auto r = read_result(points_dir, run.hash);
    if (!r)
      throw Error(
          fmt::format("{}: no result for point {} strategy {} (run {}); the sweep is "
                      "unfinished or a shard is missing",
                      points_dir, run.point, spec.strategies[run.strategy].label, run.hash));
    // The stored labels and values are informative; the spec's expansion is authoritative.
    r->strategy = spec.strategies[run.strategy].label;
    results.push_back(std::move(*r));
    ++(results.back().ok ? counts.ok : counts.skipped);
  }
  std::string text = header(spec);
  std::set<std::size_t> points;
  for (std::size_t i = 0; i < runs.size();) {
    std::size_t end = i;
    std::vector<const PointResult*> group;
    while (end < runs.size() && runs[end].point == runs[i].point) group.push_back(&results[end++]);
    const auto standings = rank_point(spec, group);
    for (std::size_t k = i; k < end; ++k) text += row(spec, runs[k], results[k], standings[k - i]);
    points.insert(runs[i].point);
    i = end;
  }
  counts.points = points.size();
  counts.runs = runs.size();
  write_text_atomically(csv_path, text);
  return counts;
}

}  // namespace geotrain::sweep
