#pragma once
// The files of one simulated run (columns and fields: README.md, "Result files"). This is the
// simulator's adapter to sim/results/, which writes the files every executor shares; here the
// OpRecorder's records become its rows and the simulator's figures fill summary.json:
//   summary.json   headline figures, per-rank split, bytes per link and per collective
//   ops.csv        one row per (rank, iteration, op) that ran (sim/results/ops_csv_writer.hpp)
//   trace.json     Chrome/Perfetto timeline (sim/results/trace_writer.hpp)
//   manifest.json  git sha, seed, executor, host, build, SimGrid version, overrides
//   scenario.yaml  the scenario file as given (overrides are listed in the manifest)
//   bandwidth_changes.csv  network.bandwidth_changes as applied per link (only when there are some)
//   dynamic.csv    what each Dynamic op decided per rank and run, in the emulator's format
//                  (sim/results/dynamic_csv.hpp; only when the Program has Dynamic ops)
// summary.json, ops.csv, trace.json and dynamic.csv depend only on scenario + seed:
// byte-identical across runs.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/engine/simulation.hpp"

namespace geotrain::engine {

struct RunInfo {
  std::vector<std::string> overrides;  // --set key=value as given
  bool write_trace = true;
};

nlohmann::ordered_json summary_json(const Program& program, const SimulationResult& result);
// Times printed exactly (shortest round-trip text), idle_s and bytes_sent always filled.
void write_ops_csv(const Program& program, const SimulationResult& result, std::ostream& out);
void write_trace(const Program& program, const SimulationResult& result, std::ostream& out);
// network.bandwidth_changes as applied: at_s,link,src,dst,factor,bandwidth_Bps (one row per link
// and change; src/dst empty for NIC and WAN links of the regions platform).
void write_bandwidth_changes_csv(const SimulationResult& result, std::ostream& out);
nlohmann::ordered_json manifest_json(const Scenario& scenario, const SimulationResult& result,
                                     const RunInfo& info);

void write_results(const std::string& dir, const Scenario& scenario, const Program& program,
                   const SimulationResult& result, const RunInfo& info);

}  // namespace geotrain::engine
