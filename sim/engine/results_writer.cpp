#include "sim/engine/results_writer.hpp"

#include <fmt/format.h>
#include <simgrid/version.h>

#include <algorithm>
#include <filesystem>

#include "sim/common/iteration_intervals.hpp"
#include "sim/common/quantile.hpp"
#include "sim/results/dynamic_csv.hpp"
#include "sim/results/manifest.hpp"
#include "sim/results/ops_csv_writer.hpp"
#include "sim/results/result_file.hpp"
#include "sim/results/summary_head.hpp"
#include "sim/results/trace_writer.hpp"

namespace geotrain::engine {

namespace {

nlohmann::ordered_json split_stats(const std::vector<RankSplit>& ranks, double RankSplit::*field) {
  double lo = 1e300, hi = 0, sum = 0;
  for (const auto& r : ranks) lo = std::min(lo, r.*field), hi = std::max(hi, r.*field), sum += r.*field;
  if (ranks.empty()) lo = 0;
  return {{"mean", ranks.empty() ? 0 : sum / static_cast<double>(ranks.size())}, {"min", lo}, {"max", hi}};
}

// Calls visit(row, record) for every (rank, iteration, op) in that order, ran or not: the
// record says whether (and how far) the op ran, each file picks the rows it shows.
template <class Visit>
void for_each_record(const Program& program, const SimulationResult& result, Visit&& visit) {
  const OpRecorder& rec = result.records;
  for (int r = 0; r < program.world_size; ++r)
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const OpRecord& o = rec.at(r, it, static_cast<int>(i));
        visit(results::OpRow{r, it, i, o.start_s, o.end_s, o.idle_s, o.bytes_sent}, o);
      }
}

// p10 / p50 / p90 of the run's per-iteration times, the steady iterations (an asynchronous
// run's drain left out): the spread the simulator predicts (under simulation.compute_variance:
// sampled; a median run spreads only through the network and stragglers). The times are the
// completion intervals compare judges (sim/common/iteration_intervals.hpp); every rank starts at
// 0 in a simulation.
nlohmann::ordered_json iteration_quantiles(const std::vector<double>& iteration_end_s, int steady) {
  auto times = completion_intervals(iteration_end_s, 0.0);
  if (steady > 0 && static_cast<std::size_t>(steady) < times.size()) times.resize(static_cast<std::size_t>(steady));
  std::sort(times.begin(), times.end());
  return {{"p10", sorted_quantile(times, 0.1)},
          {"p50", sorted_quantile(times, 0.5)},
          {"p90", sorted_quantile(times, 0.9)}};
}

}  // namespace

nlohmann::ordered_json summary_json(const Program& program, const SimulationResult& r) {
  nlohmann::ordered_json j = results::summary_head("sim", r.scenario, r.strategy);
  j["network_model"] = r.network_model;
  j["platform"] = r.platform;
  j["world_size"] = r.world_size;
  j["iterations"] = r.iterations;
  j["iteration_time_s"] = r.iteration_time_s;
  j["makespan_s"] = r.makespan_s;
  j["iteration_end_s"] = r.iteration_end_s;
  j["steady_iterations"] = r.steady_iterations;
  if (r.iteration_period > 1) j["iteration_period"] = r.iteration_period;  // absent: 1, files unchanged
  j["iteration_quantiles_s"] = iteration_quantiles(r.iteration_end_s, r.steady_iterations);
  j["tokens_per_s"] = r.tokens_per_s;
  j["samples_per_s"] = r.samples_per_s;
  j["achieved_pflops"] = r.achieved_flops / 1e15;
  results::add_workload_figures(j, program);
  j["bubble_fraction"] = r.bubble_fraction < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(r.bubble_fraction);
  j["split_s"] = {{"compute", split_stats(r.ranks, &RankSplit::compute_s)},
                  {"communication", split_stats(r.ranks, &RankSplit::communication_s)},
                  {"idle", split_stats(r.ranks, &RankSplit::idle_s)}};
  auto& ranks = j["ranks"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    auto entry = results::rank_entry(program, static_cast<int>(i));
    entry["compute_s"] = r.ranks[i].compute_s;
    entry["communication_s"] = r.ranks[i].communication_s;
    entry["idle_s"] = r.ranks[i].idle_s;
    ranks.push_back(std::move(entry));
  }
  j["bytes"] = {{"p2p", r.p2p_bytes},
                {"collectives", r.collective_bytes_total},
                {"dynamic", r.dynamic_bytes}};
  auto& coll = j["collectives"] = nlohmann::ordered_json::array();
  for (const auto& c : r.collective_bytes)
    coll.push_back({{"group", c.group}, {"label", c.label}, {"kind", c.kind},
                    {"algorithm", c.algorithm}, {"group_size", c.group_size},
                    {"member_entries", c.instances}, {"bytes_sent", c.bytes_sent}});
  auto& links = j["links"] = nlohmann::ordered_json::array();
  for (const auto& l : r.link_bytes) links.push_back({{"link", l.link}, {"bytes", l.bytes}});
  j["warnings"] = r.warnings;
  return j;
}

void write_ops_csv(const Program& program, const SimulationResult& result, std::ostream& out) {
  results::OpsCsvWriter writer(out, program, results::TimeFormat::shortest);
  for_each_record(program, result, [&](const results::OpRow& row, const OpRecord& o) {
    if (o.ran()) writer.add(row);  // an op inactive in an iteration has no row
  });
}

void write_trace(const Program& program, const SimulationResult& result, std::ostream& out) {
  results::TraceWriter writer(out, program, results::TimeFormat::shortest);
  for_each_record(program, result, [&](const results::OpRow& row, const OpRecord& o) {
    if (o.start_s >= 0 && o.end_s >= 0) writer.add(row);
  });
  writer.finish();
}

nlohmann::ordered_json manifest_json(const Scenario& s, const SimulationResult& r, const RunInfo& info) {
  results::Provenance p{"sim", s.name, s.path, info.overrides, s.seed, nlohmann::ordered_json::object()};
  p.versions["simgrid_version"] =
      fmt::format("{}.{}.{}", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH);
  nlohmann::ordered_json j = results::manifest_head(p);
  j["build"] = results::build_kind();
  j["network_model"] = r.network_model;
  j["platform"] = r.platform;
  j["iterations"] = r.iterations;
  j["simulation_wall_s"] = r.simulation_wall_s;
  j["simulated_ranks"] = r.simulated_ranks;  // the others ran as twins (docs/simulator-models.md)
  return j;
}

void write_bandwidth_changes_csv(const SimulationResult& result, std::ostream& out) {
  out << "at_s,link,src,dst,factor,bandwidth_Bps\n";
  for (const auto& c : result.bandwidth_changes)
    out << fmt::format("{:.9g},{},{},{},{:.9g},{:.9g}\n", c.at_s, c.link,
                       c.src < 0 ? std::string() : std::to_string(c.src),
                       c.dst < 0 ? std::string() : std::to_string(c.dst), c.factor, c.bandwidth_Bps);
}

void write_results(const std::string& dir, const Scenario& scenario, const Program& program,
                   const SimulationResult& result, const RunInfo& info) {
  namespace fs = std::filesystem;
  results::open_result_file((fs::path(dir) / "summary.json").string()) << summary_json(program, result).dump(2) << "\n";
  {
    auto f = results::open_result_file((fs::path(dir) / "ops.csv").string());
    write_ops_csv(program, result, f);
  }
  if (info.write_trace) {
    auto f = results::open_result_file((fs::path(dir) / "trace.json").string());
    write_trace(program, result, f);
  }
  if (!result.dynamic_decisions.empty()) {
    auto f = results::open_result_file((fs::path(dir) / "dynamic.csv").string());
    results::write_dynamic_csv(result.dynamic_decisions, f);
  }
  if (!result.bandwidth_changes.empty()) {
    auto f = results::open_result_file((fs::path(dir) / "bandwidth_changes.csv").string());
    write_bandwidth_changes_csv(result, f);
  }
  results::open_result_file((fs::path(dir) / "manifest.json").string()) << manifest_json(scenario, result, info).dump(2) << "\n";
  results::copy_scenario_file(scenario.path, dir);
}

}  // namespace geotrain::engine
