#include "sim/engine/results_writer.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <simgrid/version.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "sim/common/csv.hpp"
#include "sim/common/error.hpp"
#include "sim/common/provenance.hpp"
#include "sim/engine/trace_writer.hpp"

namespace geotrain::engine {

namespace {


nlohmann::ordered_json split_stats(const std::vector<RankSplit>& ranks, double RankSplit::*field) {
  double lo = 1e300, hi = 0, sum = 0;
  for (const auto& r : ranks) lo = std::min(lo, r.*field), hi = std::max(hi, r.*field), sum += r.*field;
  if (ranks.empty()) lo = 0;
  return {{"mean", ranks.empty() ? 0 : sum / static_cast<double>(ranks.size())}, {"min", lo}, {"max", hi}};
}

std::ofstream open_file(const std::string& path) {
  std::ofstream f(path);
  if (!f) throw SystemError(fmt::format("open {} for writing", path), errno, "");
  return f;
}

}  // namespace

nlohmann::ordered_json summary_json(const Program& program, const SimulationResult& r) {
  nlohmann::ordered_json j;
  j["format"] = "geotrain-sim-summary";
  j["version"] = 1;
  j["scenario"] = r.scenario;
  j["strategy"] = r.strategy;
  j["network_model"] = r.network_model;
  j["platform"] = r.platform;
  j["world_size"] = r.world_size;
  j["iterations"] = r.iterations;
  j["iteration_time_s"] = r.iteration_time_s;
  j["makespan_s"] = r.makespan_s;
  j["iteration_end_s"] = r.iteration_end_s;
  j["tokens_per_s"] = r.tokens_per_s;
  j["samples_per_s"] = r.samples_per_s;
  j["achieved_pflops"] = r.achieved_flops / 1e15;
  j["tokens_per_iteration"] = program.tokens_per_iteration;
  j["sequences_per_iteration"] = program.sequences_per_iteration;
  j["model_flops_per_iteration"] = program.model_flops_per_iteration;
  j["bubble_fraction"] = r.bubble_fraction < 0 ? nlohmann::ordered_json() : nlohmann::ordered_json(r.bubble_fraction);
  j["split_s"] = {{"compute", split_stats(r.ranks, &RankSplit::compute_s)},
                  {"communication", split_stats(r.ranks, &RankSplit::communication_s)},
                  {"idle", split_stats(r.ranks, &RankSplit::idle_s)}};
  auto& ranks = j["ranks"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.ranks.size(); ++i)
    ranks.push_back({{"rank", i}, {"device", program.device_of_rank[i]},
                     {"compute_s", r.ranks[i].compute_s},
                     {"communication_s", r.ranks[i].communication_s},
                     {"idle_s", r.ranks[i].idle_s}});
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
  out << "rank,device,iteration,op,type,label,nonblocking,start_s,end_s,duration_s,idle_s,"
         "bytes_sent,peer,group\n";
  const OpRecorder& rec = result.records;
  for (int r = 0; r < program.world_size; ++r)
    for (int it = 0; it < rec.iterations(); ++it)
      for (std::size_t i = 0; i < rec.ops(r); ++i) {
        const Op& op = program.ranks[static_cast<std::size_t>(r)][i];
        const OpRecord& o = rec.at(r, it, static_cast<int>(i));
        if (!o.ran()) continue;  // inactive in this iteration
        std::string peer, group;
        if (const auto* s = op.as<SendOp>()) peer = std::to_string(s->peer);
        if (const auto* v = op.as<RecvOp>()) peer = std::to_string(v->peer);
        if (const auto* c = op.as<CollectiveOp>()) group = program.group(c->group).name;
        fmt::print(out, "{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r,
                   program.device_of_rank[static_cast<std::size_t>(r)], it, i, op_type_name(op),
                   csv_field(op.label), op.nonblocking ? 1 : 0, o.start_s, o.end_s,
                   o.end_s - o.start_s, o.idle_s, o.bytes_sent, peer, csv_field(group));
      }
}

nlohmann::ordered_json manifest_json(const Scenario& s, const SimulationResult& r, const RunInfo& info) {
  std::array<char, 256> host{};
  gethostname(host.data(), host.size() - 1);
  nlohmann::ordered_json j;
  j["executor"] = "sim";
  j["scenario"] = s.name;
  j["scenario_path"] = s.path;
  j["overrides"] = info.overrides;
  j["seed"] = s.seed;
  j["git_sha"] = git_sha();
  j["geotrain_version"] = GEOTRAIN_VERSION;
  j["simgrid_version"] = fmt::format("{}.{}.{}", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH);
  j["host"] = host.data();
#ifdef NDEBUG
  j["build"] = "release";
#else
  j["build"] = "debug";
#endif
  j["network_model"] = r.network_model;
  j["platform"] = r.platform;
  j["iterations"] = r.iterations;
  j["simulation_wall_s"] = r.simulation_wall_s;
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
  open_file((fs::path(dir) / "summary.json").string()) << summary_json(program, result).dump(2) << "\n";
  {
    auto f = open_file((fs::path(dir) / "ops.csv").string());
    write_ops_csv(program, result, f);
  }
  if (info.write_trace) {
    auto f = open_file((fs::path(dir) / "trace.json").string());
    write_trace(program, result, f);
  }
  if (!result.bandwidth_changes.empty()) {
    auto f = open_file((fs::path(dir) / "bandwidth_changes.csv").string());
    write_bandwidth_changes_csv(result, f);
  }
  open_file((fs::path(dir) / "manifest.json").string()) << manifest_json(scenario, result, info).dump(2) << "\n";
  if (!scenario.path.empty() && fs::exists(scenario.path)) {
    std::error_code ec;
    fs::copy_file(scenario.path, fs::path(dir) / "scenario.yaml", fs::copy_options::overwrite_existing, ec);
  }
}

}  // namespace geotrain::engine
