#pragma once
// SimGrid runs one simulation per process: each test simulation runs in a forked child, which
// sends back the summary and every op's [start, end] (iteration 0) through a temporary file.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/engine/simulation.hpp"

namespace geotrain::test {

struct ChildRun {
  bool ok = false;
  std::string error;         // what() of the exception the child caught
  bool input_error = false;  // the exception was an InputError
  nlohmann::json summary;
  int simulated_ranks = 0;  // SimulationResult::simulated_ranks
  std::vector<std::vector<double>> start_s, end_s;  // [rank][op], iteration 0

  double end(int rank, int op) const { return end_s.at(static_cast<std::size_t>(rank)).at(static_cast<std::size_t>(op)); }
  double start(int rank, int op) const { return start_s.at(static_cast<std::size_t>(rank)).at(static_cast<std::size_t>(op)); }
  double makespan() const { return summary.at("makespan_s").get<double>(); }
};

// out_dir non-empty: the child also writes the result files there.
ChildRun simulate_in_child(const Scenario& scenario, const Program& program,
                           const engine::SimulationOptions& options,
                           const engine::ComputeSeconds& compute, const std::string& out_dir = "");

// Compute ops in test programs last `flops` x 1e-12 seconds (1 Tflop = 1 s).
engine::ComputeSeconds tflop_seconds();

}  // namespace geotrain::test
