#pragma once
// The parts of summary.json every executor writes alike, so plots and `compare` read any run
// the same way:
//   head:      format ("geotrain-<executor>-summary"), version, scenario, strategy
//   workload:  tokens_per_iteration, sequences_per_iteration, model_flops_per_iteration (the
//              Program's, so throughput figures of two executors have the same numerator)
//   per rank:  {rank, device, ...} entries of "ranks"
// The figures in between (iteration time, splits, bytes) are each executor's own: a simulation
// splits idle from communication, a measurement counts bytes against the Program.
#include <string>

#include <nlohmann/json.hpp>

#include "sim/program/program.hpp"

namespace geotrain::results {

nlohmann::ordered_json summary_head(const std::string& executor, const std::string& scenario,
                                    const std::string& strategy);

// Appends the workload figures of `program` to `summary`.
void add_workload_figures(nlohmann::ordered_json& summary, const Program& program);

// {"rank": r, "device": its device}, the start of one "ranks" entry.
nlohmann::ordered_json rank_entry(const Program& program, int rank);

}  // namespace geotrain::results
